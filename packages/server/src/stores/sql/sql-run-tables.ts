/**
 * The run store logic both SQL stores share, written once over a {@link SqlDialect}: reading threads
 * and runs, patching them, searching and counting threads, deleting a thread or a run with its events.
 * What each database does its own way — claims, the fenced writes of an attempt, the queue's
 * multitask strategies, the store's clock — stays in `sqlite/` and `postgres/`.
 */
import { json, type RunRecord, type RunStatus, type ThreadQuery, type ThreadRecord } from "../run-store.js";
import { runOf, threadOf } from "./run-rows.js";
import { SqlArgs, type SqlDialect, type SqlExec } from "./sql-dialect.js";

/** The fields `updateThread` may change. */
export type ThreadPatch = Partial<Pick<ThreadRecord, "metadata" | "status" | "graphId" | "error">>;
/** The fields `updateRun` may change. */
export type RunPatch = Partial<
  Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel" | "metadata">
>;

/**
 * Threads and runs in SQL, the part of the {@link RunStore} contract whose SQL is the same in every
 * dialect but for its spelling.
 *
 * @example
 * const tables = new SqlRunTables(sqliteDialect, connection);
 * const thread = await tables.getThread("t1");
 */
export class SqlRunTables {
  readonly #d: SqlDialect;
  readonly #x: SqlExec;
  readonly #threads: string;
  readonly #runs: string;
  readonly #events: string;

  constructor(dialect: SqlDialect, exec: SqlExec) {
    this.#d = dialect;
    this.#x = exec;
    this.#threads = dialect.table("server_threads");
    this.#runs = dialect.table("server_runs");
    this.#events = dialect.table("server_run_events");
  }

  #args(): SqlArgs {
    return new SqlArgs(this.#d);
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const a = this.#args();
    const [row] = await this.#x.all(`SELECT * FROM ${this.#threads} WHERE thread_id = ${a.p(threadId)}`, a.values);
    return row ? threadOf(row) : undefined;
  }

  async updateThread(threadId: string, patch: ThreadPatch): Promise<void> {
    const a = this.#args();
    const sets = [`updated_at = ${a.p(new Date().toISOString())}`];
    if (patch.metadata !== undefined) sets.push(`metadata = ${a.p(json(patch.metadata))}`);
    if (patch.status !== undefined) sets.push(`status = ${a.p(patch.status)}`);
    if (patch.graphId !== undefined) sets.push(`graph_id = ${a.p(patch.graphId)}`);
    if (patch.error !== undefined) sets.push(`error = ${a.p(patch.error === null ? null : json(patch.error))}`);
    await this.#x.run(`UPDATE ${this.#threads} SET ${sets.join(", ")} WHERE thread_id = ${a.p(threadId)}`, a.values);
  }

  #threadWhere(query: Omit<ThreadQuery, "limit" | "offset">, a: SqlArgs): string {
    const clauses: string[] = [];
    if (query.status) clauses.push(`status = ${a.p(query.status)}`);
    if (query.owner !== undefined) clauses.push(this.#d.sameAs("owner", a.p(query.owner)));
    if (query.ids?.length) clauses.push(this.#d.oneOf("thread_id", query.ids, a));
    if (query.metadata) clauses.push(...this.#d.metadataMatches(query.metadata, a));
    return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
  }

  async searchThreads(query: ThreadQuery): Promise<ThreadRecord[]> {
    const a = this.#args();
    const where = this.#threadWhere(query, a);
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#threads} ${where} ORDER BY ${query.sortBy ?? "created_at"} ${order}, thread_id ${order}
       LIMIT ${a.p(query.limit)} OFFSET ${a.p(query.offset)}`,
      a.values,
      true,
    );
    return rows.map(threadOf);
  }

  async countThreads(query: Omit<ThreadQuery, "limit" | "offset">): Promise<number> {
    const a = this.#args();
    const where = this.#threadWhere(query, a);
    const [row] = await this.#x.all(`SELECT COUNT(*) AS n FROM ${this.#threads} ${where}`, a.values, true);
    return Number(row?.n ?? 0);
  }

  /** Deletes the thread's record, its runs and their events, in one transaction. */
  async deleteThread(threadId: string): Promise<void> {
    const p = this.#d.param(1);
    await this.#x.batch([
      [
        `DELETE FROM ${this.#events} WHERE run_id IN (SELECT run_id FROM ${this.#runs} WHERE thread_id = ${p})`,
        [threadId],
      ],
      [`DELETE FROM ${this.#runs} WHERE thread_id = ${p}`, [threadId]],
      [`DELETE FROM ${this.#threads} WHERE thread_id = ${p}`, [threadId]],
    ]);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const a = this.#args();
    const [row] = await this.#x.all(`SELECT * FROM ${this.#runs} WHERE run_id = ${a.p(runId)}`, a.values);
    return row ? runOf(row) : undefined;
  }

  async listRuns(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]> {
    // arguments are added in the order they appear: SQLite's `?` are positional
    const a = this.#args();
    const where = `thread_id = ${a.p(threadId)}${options.status ? ` AND status = ${a.p(options.status)}` : ""}`;
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#runs} WHERE ${where} ORDER BY seq DESC LIMIT ${a.p(options.limit)} OFFSET ${a.p(options.offset)}`,
      a.values,
    );
    return rows.map(runOf);
  }

  async updateRun(runId: string, patch: RunPatch): Promise<void> {
    const a = this.#args();
    const sets = [`updated_at = ${a.p(new Date().toISOString())}`];
    if (patch.status !== undefined) sets.push(`status = ${a.p(patch.status)}`);
    if (patch.error !== undefined) sets.push(`error = ${a.p(patch.error ? json(patch.error) : null)}`);
    if (patch.preCheckpointId !== undefined) sets.push(`pre_checkpoint_id = ${a.p(patch.preCheckpointId)}`);
    if (patch.preWriteCount !== undefined) sets.push(`pre_write_count = ${a.p(patch.preWriteCount)}`);
    if (patch.cancel !== undefined) sets.push(`cancel = ${a.p(patch.cancel)}`);
    if (patch.metadata !== undefined) sets.push(`metadata = ${a.p(json(patch.metadata))}`);
    await this.#x.run(`UPDATE ${this.#runs} SET ${sets.join(", ")} WHERE run_id = ${a.p(runId)}`, a.values);
  }

  /** Deletes the run and its events, in one transaction. */
  async deleteRun(runId: string): Promise<void> {
    const p = this.#d.param(1);
    await this.#x.batch([
      [`DELETE FROM ${this.#events} WHERE run_id = ${p}`, [runId]],
      [`DELETE FROM ${this.#runs} WHERE run_id = ${p}`, [runId]],
    ]);
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    const a = this.#args();
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#runs} WHERE thread_id = ${a.p(threadId)} AND status IN ('pending', 'running') ORDER BY seq`,
      a.values,
    );
    return rows.map(runOf);
  }

  async runCounts(): Promise<Partial<Record<RunStatus, number>>> {
    const rows = await this.#x.all(
      `SELECT status, COUNT(*) AS n FROM ${this.#runs} WHERE status IN ('pending', 'running') GROUP BY status`,
      [],
    );
    return Object.fromEntries(rows.map((r) => [r.status as RunStatus, Number(r.n)]));
  }

  /** Threads with no queued or running run, unchanged for `idleForMs`, oldest first, after `after`. */
  async idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]> {
    const a = this.#args();
    const cutoff = a.p(new Date(Date.now() - options.idleForMs).toISOString());
    const rows = await this.#x.all(
      `SELECT * FROM ${this.#threads} t WHERE t.status <> 'busy' AND t.updated_at < ${cutoff} AND t.updated_at > ${a.p(options.after ?? "")}
         AND NOT EXISTS (SELECT 1 FROM ${this.#runs} r WHERE r.thread_id = t.thread_id AND r.status IN ('pending', 'running'))
       ORDER BY t.updated_at LIMIT ${a.p(options.limit)}`,
      a.values,
    );
    return rows.map(threadOf);
  }
}
