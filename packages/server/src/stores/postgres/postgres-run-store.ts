import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import type pg from "pg";
import {
  type AttemptEnd,
  type AttemptStart,
  type CancelAction,
  type CancelResult,
  type EnqueueResult,
  type EventPage,
  eventPageOf,
  type HeartbeatResult,
  json,
  type MultitaskStrategy,
  type NewEvent,
  type RequeueResult,
  type RunRecord,
  type RunStatus,
  type RunStore,
  runRowValues,
  type StateClock,
  type StoredEvent,
  type SweepOptions,
  type ThreadQuery,
  type ThreadRecord,
  type ThreadStatus,
} from "../run-store.js";
import { jsonColumn, runOf } from "../sql/run-rows.js";
import type { Row } from "../sql/sql-dialect.js";
import { type RunPatch, SqlRunTables, type ThreadPatch } from "../sql/sql-run-tables.js";
import {
  NOW_MS,
  NOW_MS_EXACT,
  type PostgresCommitCounts,
  PostgresConnection,
  postgresDialect,
  QUICK_COMMIT,
} from "./postgres-connection.js";
import * as attempts from "./postgres-run-attempts.js";
import { settle } from "./postgres-run-attempts.js";

export { POSTGRES_SESSION_OPTIONS } from "./postgres-connection.js";

/**
 * Options of {@link PostgresRunStore}.
 *
 * @example
 * const options: PostgresRunStoreOptions = { connectionString: "postgres://127.0.0.1:5432/test", schema: "trellis_dev" };
 * const store = new PostgresRunStore(options);
 */
export interface PostgresRunStoreOptions {
  /** A pool to use (e.g. the PostgresSaver's); the store will not end it. */
  pool?: pg.Pool;
  connectionString?: string;
  /** Schema of the tables; created when missing. Default `trellis`. */
  schema?: string;
}

/**
 * The scale-out {@link RunStore}: threads, runs, run events and the queue in PostgreSQL, shared by any
 * number of API and worker processes. A claim is one statement (`FOR UPDATE SKIP LOCKED`, a unique index
 * on running runs per thread), so no worker waits on another's claim and a thread never has two running
 * runs; every write of a claimed attempt names its attempt and is refused once stale; runs of a worker
 * that stops sending heartbeats go back to the queue.
 *
 * @example
 * const store = new PostgresRunStore({ pool: saver.pool, schema: "trellis" });
 * await store.setup();
 */
export class PostgresRunStore implements RunStore {
  readonly #db: PostgresConnection;
  readonly #tables: SqlRunTables;

  constructor(options: PostgresRunStoreOptions) {
    this.#db = new PostgresConnection(options);
    this.#tables = new SqlRunTables(postgresDialect(this.#db.s), this.#db);
  }

  /** Creates or migrates the tables (once; every method waits for it). */
  setup(): Promise<void> {
    return this.#db.setup();
  }

  /** Commits made each way since the store opened. */
  get commitCounts(): PostgresCommitCounts {
    return this.#db.commitCounts;
  }

  /**
   * Makes every commit of the database cluster made so far durable (this store's bookkeeping commits
   * with `synchronous_commit = off`; so may another process's): one round trip, and one synchronous
   * commit when the WAL is not flushed to its end. Safe across processes: WAL is one ordered log for
   * the whole cluster, so the flush covers every commit that came before it, whichever process made it.
   */
  syncCommits(): Promise<void> {
    return this.#db.syncCommits();
  }

  async createThread(thread: ThreadRecord, ifExists: "raise" | "do_nothing"): Promise<ThreadRecord> {
    const rows = await this.#db.q(
      `INSERT INTO ${this.#db.s}.server_threads (thread_id, created_at, updated_at, metadata, status, owner, graph_id, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (thread_id) DO NOTHING RETURNING thread_id, ${QUICK_COMMIT}`,
      [
        thread.threadId,
        thread.createdAt,
        thread.updatedAt,
        json(thread.metadata),
        thread.status,
        thread.owner,
        thread.graphId,
        thread.error === null || thread.error === undefined ? null : json(thread.error),
      ],
    );
    if (rows.length) return thread;
    if (ifExists === "raise") {
      throw new TrellisError("CONFLICT", `Thread "${thread.threadId}" already exists. Pass if_exists: "do_nothing".`);
    }
    return (await this.getThread(thread.threadId)) as ThreadRecord;
  }

  getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.#tables.getThread(threadId);
  }

  updateThread(threadId: string, patch: ThreadPatch): Promise<void> {
    return this.#tables.updateThread(threadId, patch);
  }

  async markStateChanged(threadId: string): Promise<void> {
    await this.#db.q(
      `UPDATE ${this.#db.s}.server_threads SET state_changed_at = ${NOW_MS_EXACT} WHERE thread_id = $1 RETURNING ${QUICK_COMMIT}`,
      [threadId],
    );
  }

  async stateClock(threadId: string): Promise<StateClock> {
    const [row] = await this.#db.q(
      `SELECT ${NOW_MS_EXACT} AS now, (SELECT state_changed_at FROM ${this.#db.s}.server_threads WHERE thread_id = $1) AS changed_at`,
      [threadId],
    );
    const changed = row?.changed_at;
    return { changedAt: changed === null || changed === undefined ? null : Number(changed), now: Number(row?.now) };
  }

  searchThreads(query: ThreadQuery): Promise<ThreadRecord[]> {
    return this.#tables.searchThreads(query);
  }

  countThreads(query: Omit<ThreadQuery, "limit" | "offset">): Promise<number> {
    return this.#tables.countThreads(query);
  }

  deleteThread(threadId: string): Promise<void> {
    return this.#tables.deleteThread(threadId);
  }

  async enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult> {
    return this.#db.threadTx(run.threadId, async (c) => {
      const { rows } = await c.query(
        `SELECT * FROM ${this.#db.s}.server_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq`,
        [run.threadId],
      );
      const active = (rows as Row[]).map(runOf);
      const result: EnqueueResult = { running: active.find((r) => r.status === "running"), dropped: [] };
      if (active.length > 0 && strategy === "reject") {
        throw new TrellisError(
          "CONFLICT",
          `Thread "${run.threadId}" is busy with run ${active[0]?.runId}. Wait for it, or pass multitask_strategy "enqueue", "interrupt" or "rollback".`,
        );
      }
      const now = new Date().toISOString();
      if (strategy === "interrupt" || strategy === "rollback") {
        for (const queued of active.filter((r) => r.status === "pending")) {
          // claims take no thread lock: a queued run may have started meanwhile
          const { rowCount } = await c.query(
            `UPDATE ${this.#db.s}.server_runs SET status = 'interrupted', cancel = $1, updated_at = $2 WHERE run_id = $3 AND status = 'pending'`,
            [strategy, now, queued.runId],
          );
          if (rowCount) result.dropped.push({ ...queued, status: "interrupted", cancel: strategy });
          else result.running ??= { ...queued, status: "running" };
        }
        if (result.running) {
          await c.query(`UPDATE ${this.#db.s}.server_runs SET cancel = $1 WHERE run_id = $2`, [
            strategy === "interrupt" ? "drain" : "rollback",
            result.running.runId,
          ]);
        }
      }
      await c.query(
        `INSERT INTO ${this.#db.s}.server_runs (run_id, thread_id, assistant_id, status, created_at, updated_at, metadata, kwargs,
           multitask_strategy, owner, attempt, error, pre_checkpoint_id, pre_write_count, cancel)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        runRowValues(run),
      );
      await c.query(`UPDATE ${this.#db.s}.server_threads SET status = 'busy', updated_at = $1 WHERE thread_id = $2`, [
        run.createdAt,
        run.threadId,
      ]);
      return result;
    });
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.#tables.getRun(runId);
  }

  listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    return this.#tables.listRuns(threadId, options);
  }

  updateRun(runId: string, patch: RunPatch): Promise<void> {
    return this.#tables.updateRun(runId, patch);
  }

  deleteRun(runId: string): Promise<void> {
    return this.#tables.deleteRun(runId);
  }

  runCounts(): Promise<Partial<Record<RunStatus, number>>> {
    return this.#tables.runCounts();
  }

  activeRuns(threadId: string): Promise<RunRecord[]> {
    return this.#tables.activeRuns(threadId);
  }

  claimNext(workerId: string): Promise<RunRecord | undefined> {
    return attempts.claimNext(this.#db, workerId);
  }

  async pendingRunsOf(owner: string | null): Promise<number> {
    const [row] = await this.#db.q(
      `SELECT COUNT(*) AS n FROM ${this.#db.s}.server_runs WHERE status = 'pending' AND COALESCE(owner, '') = $1`,
      [owner ?? ""],
    );
    return Number(row?.n ?? 0);
  }

  beginAttempt(
    runId: string,
    attempt: number,
    start: AttemptStart,
  ): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }> {
    return attempts.beginAttempt(this.#db, runId, attempt, start);
  }

  appendEvents(runId: string, attempt: number, events: NewEvent[]): Promise<number[]> {
    return attempts.appendEvents(this.#db, runId, attempt, events);
  }

  finishRun(runId: string, attempt: number, end: AttemptEnd): Promise<number[]> {
    return attempts.finishRun(this.#db, runId, attempt, end);
  }

  releaseRun(runId: string, attempt: number): Promise<boolean> {
    return attempts.releaseRun(this.#db, runId, attempt);
  }

  async cancelRun(runId: string, action: CancelAction): Promise<CancelResult> {
    const run = await this.getRun(runId);
    if (!run) return "missing";
    return this.#db.threadTx(run.threadId, async (c) => {
      const now = new Date().toISOString();
      const pending = await c.query(
        `UPDATE ${this.#db.s}.server_runs SET status = 'interrupted', cancel = $2, updated_at = $3
         WHERE run_id = $1 AND status = 'pending'`,
        [runId, action, now],
      );
      if (pending.rowCount) {
        const { rows } = await c.query(`SELECT status FROM ${this.#db.s}.server_threads WHERE thread_id = $1`, [
          run.threadId,
        ]);
        const status = rows[0]?.status as ThreadStatus | undefined;
        if (status) await settle(this.#db, c, run.threadId, status === "busy" ? "idle" : status, now);
        return "cancelled";
      }
      const running = await c.query(
        `UPDATE ${this.#db.s}.server_runs SET cancel = $2 WHERE run_id = $1 AND status = 'running'`,
        [runId, action],
      );
      return running.rowCount ? "signalled" : "finished";
    });
  }

  heartbeat(workerId: string, runs: Array<{ runId: string; attempt: number }>): Promise<HeartbeatResult> {
    return attempts.heartbeat(this.#db, workerId, runs);
  }

  requeueOrphans(staleMs?: number): Promise<RequeueResult> {
    return attempts.requeueOrphans(this.#db, staleMs);
  }

  async sweepRuns(options: SweepOptions): Promise<number> {
    const cutoff = new Date(Date.now() - options.runsOlderThanMs).toISOString();
    return this.#db.tx(async (c) => {
      const { rows } = await c.query(
        `DELETE FROM ${this.#db.s}.server_runs WHERE run_id IN (
           SELECT run_id FROM ${this.#db.s}.server_runs WHERE status NOT IN ('pending', 'running') AND updated_at < $1
           ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING run_id`,
        [cutoff, options.limit],
      );
      if (rows.length) {
        await c.query(`DELETE FROM ${this.#db.s}.server_run_events WHERE run_id = ANY($1)`, [
          rows.map((r) => r.run_id),
        ]);
      }
      return rows.length;
    });
  }

  idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]> {
    return this.#tables.idleThreads(options);
  }

  async exclusive(name: string, ttlMs: number, fn: () => Promise<void>): Promise<boolean> {
    const holder = randomUUID();
    const taken = await this.#db.q(
      `INSERT INTO ${this.#db.s}.server_leases (name, holder, expires_at) VALUES ($1, $2, ${NOW_MS} + $3)
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE ${this.#db.s}.server_leases.expires_at < ${NOW_MS}
       RETURNING ${QUICK_COMMIT}`,
      [name, holder, ttlMs],
    );
    if (!taken.length) return false;
    try {
      await fn();
    } finally {
      await this.#db
        .q(`DELETE FROM ${this.#db.s}.server_leases WHERE name = $1 AND holder = $2 RETURNING ${QUICK_COMMIT}`, [
          name,
          holder,
        ])
        .catch(() => undefined);
    }
    return true;
  }

  appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    return attempts.appendEvent(this.#db, runId, event, data);
  }

  async eventsAfter(runId: string, afterSeq: number, page?: number | EventPage): Promise<StoredEvent[]> {
    const { limit, maxBytes } = eventPageOf(page);
    // LIMIT NULL: no limit; with a byte budget, the rows whose data starts within it (sizes summed in
    // the database, so the rows past it never leave it)
    const rows = await this.#db.q(
      maxBytes === null
        ? `SELECT seq, event, data FROM ${this.#db.s}.server_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`
        : `SELECT seq, event, data FROM (
             SELECT seq, event, data, sum(octet_length(data)) OVER (ORDER BY seq) - octet_length(data) AS before
             FROM ${this.#db.s}.server_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
           ) AS page WHERE before < $4 ORDER BY seq`,
      maxBytes === null ? [runId, afterSeq, limit] : [runId, afterSeq, limit, maxBytes],
    );
    return rows.map((r) => ({ seq: Number(r.seq), event: r.event as string, data: jsonColumn(r.data) }));
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}
