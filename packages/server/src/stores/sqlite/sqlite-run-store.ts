import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { TrellisError } from "@trellis/checkpoint";
import type { Database } from "better-sqlite3";
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
import { threadOf } from "../sql/run-rows.js";
import type { Row } from "../sql/sql-dialect.js";
import { type RunPatch, SqlRunTables, type ThreadPatch } from "../sql/sql-run-tables.js";
import { type SqliteCommitCounts, SqliteConnection, sqliteDialect, storeNow } from "./sqlite-connection.js";
import * as attempts from "./sqlite-run-attempts.js";
import { activeRunsNow, settle } from "./sqlite-run-attempts.js";

export type { SqliteCommitCounts } from "./sqlite-connection.js";

/**
 * The embedded {@link RunStore}: threads, runs, run events and the queue in the server's SQLite file.
 * Safe for one server process per file (runs left `running` are taken back at start).
 *
 * Its writes commit with `synchronous=NORMAL` (no disk sync; in WAL mode a commit still survives a
 * process crash or kill -9, and a power cut can only drop the last commits, never corrupt the file or
 * keep a later commit without an earlier one). {@link syncCommits} makes them durable with one
 * `synchronous=FULL` commit when any were made since the last one; the server calls it before each
 * answer. On a connection opened with `synchronous=NORMAL` (or OFF) every commit stays at that level.
 *
 * @example
 * const store = new SqliteRunStore(saver.database);
 * await store.requeueOrphans();
 */
export class SqliteRunStore implements RunStore {
  readonly #c: SqliteConnection;
  readonly #tables: SqlRunTables;

  constructor(db: Database) {
    this.#c = new SqliteConnection(db);
    this.#tables = new SqlRunTables(sqliteDialect, this.#c);
  }

  /** Commits made each way since the store opened. */
  get commitCounts(): SqliteCommitCounts {
    return this.#c.commitCounts;
  }

  /** Whether a quick commit was made since the last durable commit: what {@link syncCommits} would sync. */
  get unsynced(): boolean {
    return this.#c.unsynced;
  }

  /**
   * Makes the store's quick commits durable through a power cut: when any was made since the last
   * durable commit, one `synchronous=FULL` commit whose sync of the write-ahead log carries every
   * earlier commit of the file with it. Nothing to do otherwise.
   */
  syncCommits(): Promise<void> {
    return this.#c.syncCommits();
  }

  /**
   * Runs `fn` with its synchronous commits on this file — the saver's too, which shares it — at
   * `synchronous=NORMAL`, synced by the next {@link syncCommits} like the store's own.
   */
  commitQuickly<T>(fn: () => T): T {
    return this.#c.quick(fn);
  }

  async createThread(thread: ThreadRecord, ifExists: "raise" | "do_nothing"): Promise<ThreadRecord> {
    return this.#c.tx(() => {
      const existing = this.#c.stmt("SELECT * FROM server_threads WHERE thread_id = ?").get(thread.threadId) as
        | Row
        | undefined;
      if (existing) {
        if (ifExists === "do_nothing") return threadOf(existing);
        throw new TrellisError("CONFLICT", `Thread "${thread.threadId}" already exists. Pass if_exists: "do_nothing".`);
      }
      this.#c
        .stmt(
          "INSERT INTO server_threads (thread_id, created_at, updated_at, metadata, status, owner, graph_id, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          thread.threadId,
          thread.createdAt,
          thread.updatedAt,
          json(thread.metadata),
          thread.status,
          thread.owner,
          thread.graphId,
          thread.error === null || thread.error === undefined ? null : json(thread.error),
        );
      return thread;
    });
  }

  getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.#tables.getThread(threadId);
  }

  updateThread(threadId: string, patch: ThreadPatch): Promise<void> {
    return this.#tables.updateThread(threadId, patch);
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

  async markStateChanged(threadId: string): Promise<void> {
    this.#c.quick(() =>
      this.#c.stmt("UPDATE server_threads SET state_changed_at = ? WHERE thread_id = ?").run(storeNow(), threadId),
    );
  }

  async stateClock(threadId: string): Promise<StateClock> {
    const row = this.#c.stmt("SELECT state_changed_at FROM server_threads WHERE thread_id = ?").get(threadId) as
      | { state_changed_at: number | null }
      | undefined;
    const readAt = performance.now();
    return { changedAt: row?.state_changed_at ?? null, now: storeNow(readAt), readAt };
  }

  async enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult> {
    return this.#c.tx(() => {
      const active = activeRunsNow(this.#c, run.threadId);
      const result: EnqueueResult = { running: active.find((r) => r.status === "running"), dropped: [] };
      if (active.length > 0 && strategy === "reject") {
        throw new TrellisError(
          "CONFLICT",
          `Thread "${run.threadId}" is busy with run ${active[0]?.runId}. Wait for it, or pass multitask_strategy "enqueue", "interrupt" or "rollback".`,
          { details: { threadId: run.threadId, activeRunId: active[0]?.runId } },
        );
      }
      if (strategy === "interrupt" || strategy === "rollback") {
        const now = new Date().toISOString();
        for (const queued of active.filter((r) => r.status === "pending")) {
          this.#c
            .stmt("UPDATE server_runs SET status = 'interrupted', cancel = ?, updated_at = ? WHERE run_id = ?")
            .run(strategy, now, queued.runId);
          result.dropped.push({ ...queued, status: "interrupted", cancel: strategy });
        }
        if (result.running) {
          const stop = strategy === "interrupt" ? "drain" : "rollback";
          this.#c.stmt("UPDATE server_runs SET cancel = ? WHERE run_id = ?").run(stop, result.running.runId);
        }
      }
      this.#c
        .stmt(
          `INSERT INTO server_runs (run_id, thread_id, assistant_id, status, created_at, updated_at, metadata, kwargs,
           multitask_strategy, owner, attempt, error, pre_checkpoint_id, pre_write_count, cancel)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...runRowValues(run));
      this.#c
        .stmt("UPDATE server_threads SET status = 'busy', updated_at = ? WHERE thread_id = ?")
        .run(run.createdAt, run.threadId);
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

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return activeRunsNow(this.#c, threadId);
  }

  runCounts(): Promise<Partial<Record<RunStatus, number>>> {
    return this.#tables.runCounts();
  }

  async claimNext(workerId: string): Promise<RunRecord | undefined> {
    return attempts.claimNext(this.#c, workerId);
  }

  async pendingRunsOf(owner: string | null): Promise<number> {
    const row = this.#c
      .stmt("SELECT COUNT(*) AS n FROM server_runs WHERE status = 'pending' AND owner IS ?")
      .get(owner) as { n: number };
    return Number(row.n);
  }

  async beginAttempt(
    runId: string,
    attempt: number,
    start: AttemptStart,
  ): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }> {
    return attempts.beginAttempt(this.#c, runId, attempt, start);
  }

  async appendEvents(runId: string, attempt: number, events: NewEvent[]): Promise<number[]> {
    return attempts.appendEvents(this.#c, runId, attempt, events);
  }

  async finishRun(runId: string, attempt: number, end: AttemptEnd): Promise<number[]> {
    return attempts.finishRun(this.#c, runId, attempt, end);
  }

  async releaseRun(runId: string, attempt: number): Promise<boolean> {
    return attempts.releaseRun(this.#c, runId, attempt);
  }

  async cancelRun(runId: string, action: CancelAction): Promise<CancelResult> {
    return this.#c.tx(() => {
      const row = this.#c.stmt("SELECT status, thread_id FROM server_runs WHERE run_id = ?").get(runId) as
        | { status: string; thread_id: string }
        | undefined;
      if (!row) return "missing";
      const now = new Date().toISOString();
      if (row.status === "pending") {
        this.#c
          .stmt("UPDATE server_runs SET status = 'interrupted', cancel = ?, updated_at = ? WHERE run_id = ?")
          .run(action, now, runId);
        const thread = this.#c.stmt("SELECT status FROM server_threads WHERE thread_id = ?").get(row.thread_id) as
          | { status: ThreadStatus }
          | undefined;
        if (thread) settle(this.#c, row.thread_id, thread.status === "busy" ? "idle" : thread.status, now);
        return "cancelled";
      }
      if (row.status === "running") {
        this.#c.stmt("UPDATE server_runs SET cancel = ? WHERE run_id = ?").run(action, runId);
        return "signalled";
      }
      return "finished";
    });
  }

  async heartbeat(workerId: string, runs: Array<{ runId: string; attempt: number }>): Promise<HeartbeatResult> {
    return attempts.heartbeat(this.#c, workerId, runs);
  }

  async requeueOrphans(staleMs?: number): Promise<RequeueResult> {
    return attempts.requeueOrphans(this.#c, staleMs);
  }

  async sweepRuns(options: SweepOptions): Promise<number> {
    return this.#c.tx(() => {
      const cutoff = new Date(Date.now() - options.runsOlderThanMs).toISOString();
      const ids = (
        this.#c
          .stmt(
            "SELECT run_id FROM server_runs WHERE status NOT IN ('pending', 'running') AND updated_at < ? ORDER BY updated_at LIMIT ?",
          )
          .all(cutoff, options.limit) as Array<{ run_id: string }>
      ).map((r) => r.run_id);
      const events = this.#c.stmt("DELETE FROM server_run_events WHERE run_id = ?");
      const run = this.#c.stmt("DELETE FROM server_runs WHERE run_id = ?");
      for (const id of ids) {
        events.run(id);
        run.run(id);
      }
      return ids.length;
    });
  }

  idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]> {
    return this.#tables.idleThreads(options);
  }

  async exclusive(name: string, ttlMs: number, fn: () => Promise<void>): Promise<boolean> {
    const holder = randomUUID();
    const now = Date.now();
    const take = this.#c.stmt(
      `INSERT INTO server_leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE server_leases.expires_at < ?`,
    );
    const taken = this.#c.quick(() => take.run(name, holder, now + ttlMs, now).changes);
    if (!taken) return false;
    try {
      await fn();
    } finally {
      const free = this.#c.stmt("DELETE FROM server_leases WHERE name = ? AND holder = ?");
      this.#c.quick(() => free.run(name, holder));
    }
    return true;
  }

  async appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    return attempts.appendEvent(this.#c, runId, event, data);
  }

  async eventsAfter(runId: string, afterSeq: number, page?: number | EventPage): Promise<StoredEvent[]> {
    const { limit, maxBytes } = eventPageOf(page);
    // LIMIT -1: no limit; rows are read one at a time, so a byte budget stops before the next row is
    const rows = this.#c
      .stmt("SELECT seq, event, data FROM server_run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .iterate(runId, afterSeq, limit ?? -1) as IterableIterator<{ seq: number; event: string; data: string }>;
    const out: StoredEvent[] = [];
    let bytes = 0;
    for (const r of rows) {
      out.push({ seq: r.seq, event: r.event, data: JSON.parse(r.data) });
      bytes += Buffer.byteLength(r.data);
      if (maxBytes !== null && bytes >= maxBytes) {
        rows.return?.();
        break;
      }
    }
    return out;
  }

  /** Syncs the quick commits (a tool that wrote through the store and exits has no answer to wait on). */
  async close(): Promise<void> {
    if (this.#c.db.open) await this.#c.syncCommits();
    this.#c.close();
  }
}
