import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { TrellisError } from "@trellis/checkpoint";
import type { Database, Statement } from "better-sqlite3";
import {
  type AttemptEnd,
  type AttemptStart,
  attemptLost,
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

/**
 * The server's tables, as numbered migrations. Never edit a shipped one: add the next number. They live
 * in the same SQLite file as the checkpoints, beside the saver's tables, prefixed `server_`.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: "threads, runs, run events",
    sql: `
      CREATE TABLE server_threads (
        thread_id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        metadata TEXT NOT NULL,
        status TEXT NOT NULL,
        owner TEXT,
        graph_id TEXT,
        error TEXT
      );
      CREATE TABLE server_runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        thread_id TEXT NOT NULL,
        assistant_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        metadata TEXT NOT NULL,
        kwargs TEXT NOT NULL,
        multitask_strategy TEXT NOT NULL,
        owner TEXT,
        attempt INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        pre_checkpoint_id TEXT,
        pre_write_count INTEGER NOT NULL DEFAULT 0,
        cancel TEXT
      );
      CREATE INDEX server_runs_thread ON server_runs (thread_id, seq);
      CREATE INDEX server_runs_status ON server_runs (status, seq);
      CREATE TABLE server_run_events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "run workers and heartbeats",
    sql: `
      ALTER TABLE server_runs ADD COLUMN worker_id TEXT;
      ALTER TABLE server_runs ADD COLUMN heartbeat_at INTEGER;
    `,
  },
  {
    version: 3,
    name: "attempt fencing: event counter per run, pre-run head recorded once, one running run per thread, task leases",
    sql: `
      ALTER TABLE server_runs ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE server_runs ADD COLUMN pre_recorded INTEGER NOT NULL DEFAULT 0;
      UPDATE server_runs SET
        last_seq = (SELECT COALESCE(MAX(seq), 0) FROM server_run_events e WHERE e.run_id = server_runs.run_id),
        pre_recorded = CASE WHEN attempt > 0 THEN 1 ELSE 0 END;
      UPDATE server_runs SET status = 'pending' WHERE status = 'running';
      CREATE UNIQUE INDEX server_runs_one_running ON server_runs (thread_id) WHERE status = 'running';
      CREATE INDEX server_runs_finished ON server_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE TABLE server_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `,
  },
  {
    version: 4,
    name: "one row a durable commit updates to sync the bookkeeping's quick commits",
    sql: `
      CREATE TABLE server_syncs (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT INTO server_syncs (id, n) VALUES (1, 0);
    `,
  },
  {
    version: 5,
    name: "when a thread's state last changed: a resume is bound to the pause pending when it arrived",
    sql: "ALTER TABLE server_threads ADD COLUMN state_changed_at REAL;",
  },
  {
    version: 6,
    name: "fair shares: pending and running runs and threads by owner",
    sql: `
      CREATE INDEX server_runs_owner_pending ON server_runs (owner, seq) WHERE status = 'pending';
      CREATE INDEX server_runs_owner_running ON server_runs (owner) WHERE status = 'running';
      CREATE INDEX server_threads_owner ON server_threads (owner);
    `,
  },
];

/**
 * The store's clock (ms since the epoch): one process serves a SQLite file, so its own monotonic clock,
 * anchored at its start, orders a request's arrival and a change of a thread's state.
 */
const storeNow = (): number => performance.timeOrigin + performance.now();

/** Applies the server's pending migrations; returns the schema version. @internal */
export function migrateServerTables(db: Database): number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS trellis_server_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const apply = db.transaction(() => {
    const row = db.prepare("SELECT MAX(version) AS v FROM trellis_server_migrations").get() as { v: number | null };
    let version = row.v ?? 0;
    for (const m of MIGRATIONS) {
      if (m.version <= version) continue;
      db.exec(m.sql);
      db.prepare("INSERT INTO trellis_server_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
      version = m.version;
    }
    return version;
  });
  return apply.immediate();
}

interface ThreadRow {
  thread_id: string;
  created_at: string;
  updated_at: string;
  metadata: string;
  status: string;
  owner: string | null;
  graph_id: string | null;
  error: string | null;
}

interface RunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  status: string;
  created_at: string;
  updated_at: string;
  metadata: string;
  kwargs: string;
  multitask_strategy: string;
  owner: string | null;
  attempt: number;
  error: string | null;
  pre_checkpoint_id: string | null;
  pre_write_count: number;
  cancel: string | null;
}

const parse = <T>(s: string | null): T => (s === null ? (null as T) : (JSON.parse(s) as T));

function threadOf(r: ThreadRow): ThreadRecord {
  return {
    threadId: r.thread_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    metadata: parse(r.metadata) ?? {},
    status: r.status as ThreadRecord["status"],
    owner: r.owner,
    graphId: r.graph_id,
    error: parse(r.error),
  };
}

function runOf(r: RunRow): RunRecord {
  return {
    runId: r.run_id,
    threadId: r.thread_id,
    assistantId: r.assistant_id,
    status: r.status as RunStatus,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    metadata: parse(r.metadata) ?? {},
    kwargs: parse(r.kwargs),
    multitaskStrategy: r.multitask_strategy as MultitaskStrategy,
    owner: r.owner,
    attempt: r.attempt,
    error: parse(r.error),
    preCheckpointId: r.pre_checkpoint_id,
    preWriteCount: r.pre_write_count,
    cancel: r.cancel as RunRecord["cancel"],
  };
}

/**
 * How many commits a {@link SqliteRunStore} made each way, since it opened: what the durability tests
 * and the bench's sync count read.
 *
 * @example
 * const before = store.commitCounts.synced;
 * await app.request("/threads", { method: "POST", body: "{}" });
 * console.log(store.commitCounts.synced - before); // 1: the answer waited for one durable commit
 */
export interface SqliteCommitCounts {
  /** Bookkeeping commits made with `synchronous=NORMAL` (they survive a process crash, not a power cut). */
  quick: number;
  /** Durable commits {@link SqliteRunStore.syncCommits} made to sync the quick ones before an answer. */
  synced: number;
}

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
  readonly #db: Database;
  readonly #stmts = new Map<string, Statement>();
  /** The connection's `synchronous` level when the store opened (2 FULL, 3 EXTRA), put back after each quick commit. */
  readonly #level: number;
  /** Whether a quick commit was made since the last durable one. */
  #unsynced = false;
  /** Commits made each way since the store opened. */
  readonly commitCounts: SqliteCommitCounts = { quick: 0, synced: 0 };

  constructor(db: Database) {
    this.#db = db;
    migrateServerTables(db);
    this.#level = Number(db.pragma("synchronous", { simple: true }));
  }

  /**
   * Runs `fn` (one statement, or a transaction) committing with `synchronous=NORMAL`. `exec`, never a
   * prepared statement: SQLite applies a `synchronous` pragma when the pragma's statement compiles.
   */
  #quick<T>(fn: () => T): T {
    this.commitCounts.quick++;
    if (this.#level < 2) return fn();
    this.#db.exec("PRAGMA synchronous = NORMAL");
    try {
      return fn();
    } finally {
      this.#db.exec(`PRAGMA synchronous = ${this.#level}`);
      this.#unsynced = true;
    }
  }

  /** Whether a quick commit was made since the last durable commit: what {@link syncCommits} would sync. */
  get unsynced(): boolean {
    return this.#unsynced;
  }

  /**
   * Makes the store's quick commits durable through a power cut: when any was made since the last
   * durable commit, one `synchronous=FULL` commit of a one-row table, whose sync of the write-ahead log
   * carries every earlier commit of the file with it. Nothing to do otherwise.
   */
  async syncCommits(): Promise<void> {
    if (!this.#unsynced) return;
    this.#unsynced = false;
    try {
      this.#stmt("UPDATE server_syncs SET n = n + 1 WHERE id = 1").run();
      this.commitCounts.synced++;
    } catch (error) {
      this.#unsynced = true;
      throw error;
    }
  }

  #stmt(sql: string): Statement {
    let s = this.#stmts.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#stmts.set(sql, s);
    }
    return s;
  }

  #tx<T>(fn: () => T): T {
    return this.#quick(() => this.#db.transaction(fn).immediate());
  }

  async createThread(thread: ThreadRecord, ifExists: "raise" | "do_nothing"): Promise<ThreadRecord> {
    return this.#tx(() => {
      const existing = this.#stmt("SELECT * FROM server_threads WHERE thread_id = ?").get(thread.threadId) as
        | ThreadRow
        | undefined;
      if (existing) {
        if (ifExists === "do_nothing") return threadOf(existing);
        throw new TrellisError("CONFLICT", `Thread "${thread.threadId}" already exists. Pass if_exists: "do_nothing".`);
      }
      this.#stmt(
        "INSERT INTO server_threads (thread_id, created_at, updated_at, metadata, status, owner, graph_id, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      ).run(
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

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const row = this.#stmt("SELECT * FROM server_threads WHERE thread_id = ?").get(threadId) as ThreadRow | undefined;
    return row ? threadOf(row) : undefined;
  }

  async updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, "metadata" | "status" | "graphId" | "error">>,
  ): Promise<void> {
    const sets: string[] = ["updated_at = ?"];
    const args: unknown[] = [new Date().toISOString()];
    if (patch.metadata !== undefined) {
      sets.push("metadata = ?");
      args.push(json(patch.metadata));
    }
    if (patch.status !== undefined) {
      sets.push("status = ?");
      args.push(patch.status);
    }
    if (patch.graphId !== undefined) {
      sets.push("graph_id = ?");
      args.push(patch.graphId);
    }
    if (patch.error !== undefined) {
      sets.push("error = ?");
      args.push(patch.error === null ? null : json(patch.error));
    }
    const update = this.#db.prepare(`UPDATE server_threads SET ${sets.join(", ")} WHERE thread_id = ?`);
    this.#quick(() => update.run(...args, threadId));
  }

  #threadWhere(query: Omit<ThreadQuery, "limit" | "offset">): { where: string; args: unknown[] } {
    const clauses: string[] = [];
    const args: unknown[] = [];
    if (query.status) {
      clauses.push("status = ?");
      args.push(query.status);
    }
    if (query.owner !== undefined) {
      clauses.push("owner IS ?");
      args.push(query.owner);
    }
    if (query.ids?.length) {
      clauses.push(`thread_id IN (${query.ids.map(() => "?").join(", ")})`);
      args.push(...query.ids);
    }
    for (const [key, value] of Object.entries(query.metadata ?? {})) {
      clauses.push("json_extract(metadata, ?) IS json_extract(?, '$')");
      args.push(`$."${key.replace(/"/g, '""')}"`, json(value));
    }
    return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", args };
  }

  async searchThreads(query: ThreadQuery): Promise<ThreadRecord[]> {
    const { where, args } = this.#threadWhere(query);
    const sortBy = query.sortBy ?? "created_at";
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = this.#db
      .prepare(`SELECT * FROM server_threads ${where} ORDER BY ${sortBy} ${order}, thread_id ${order} LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset) as ThreadRow[];
    return rows.map(threadOf);
  }

  async countThreads(query: Omit<ThreadQuery, "limit" | "offset">): Promise<number> {
    const { where, args } = this.#threadWhere(query);
    return (this.#db.prepare(`SELECT COUNT(*) AS n FROM server_threads ${where}`).get(...args) as { n: number }).n;
  }

  async deleteThread(threadId: string): Promise<void> {
    this.#tx(() => {
      this.#stmt(
        "DELETE FROM server_run_events WHERE run_id IN (SELECT run_id FROM server_runs WHERE thread_id = ?)",
      ).run(threadId);
      this.#stmt("DELETE FROM server_runs WHERE thread_id = ?").run(threadId);
      this.#stmt("DELETE FROM server_threads WHERE thread_id = ?").run(threadId);
    });
  }

  async markStateChanged(threadId: string): Promise<void> {
    this.#quick(() =>
      this.#stmt("UPDATE server_threads SET state_changed_at = ? WHERE thread_id = ?").run(storeNow(), threadId),
    );
  }

  async stateClock(threadId: string): Promise<StateClock> {
    const row = this.#stmt("SELECT state_changed_at FROM server_threads WHERE thread_id = ?").get(threadId) as
      | { state_changed_at: number | null }
      | undefined;
    return { changedAt: row?.state_changed_at ?? null, now: storeNow() };
  }

  async enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult> {
    return this.#tx(() => {
      const active = this.#activeRuns(run.threadId);
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
          this.#stmt("UPDATE server_runs SET status = 'interrupted', cancel = ?, updated_at = ? WHERE run_id = ?").run(
            strategy,
            now,
            queued.runId,
          );
          result.dropped.push({ ...queued, status: "interrupted", cancel: strategy });
        }
        if (result.running) {
          const stop = strategy === "interrupt" ? "drain" : "rollback";
          this.#stmt("UPDATE server_runs SET cancel = ? WHERE run_id = ?").run(stop, result.running.runId);
        }
      }
      this.#stmt(
        `INSERT INTO server_runs (run_id, thread_id, assistant_id, status, created_at, updated_at, metadata, kwargs,
           multitask_strategy, owner, attempt, error, pre_checkpoint_id, pre_write_count, cancel)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...runRowValues(run));
      this.#stmt("UPDATE server_threads SET status = 'busy', updated_at = ? WHERE thread_id = ?").run(
        run.createdAt,
        run.threadId,
      );
      return result;
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const row = this.#stmt("SELECT * FROM server_runs WHERE run_id = ?").get(runId) as RunRow | undefined;
    return row ? runOf(row) : undefined;
  }

  async listRuns(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]> {
    const rows = (
      options.status
        ? this.#stmt(
            "SELECT * FROM server_runs WHERE thread_id = ? AND status = ? ORDER BY seq DESC LIMIT ? OFFSET ?",
          ).all(threadId, options.status, options.limit, options.offset)
        : this.#stmt("SELECT * FROM server_runs WHERE thread_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?").all(
            threadId,
            options.limit,
            options.offset,
          )
    ) as RunRow[];
    return rows.map(runOf);
  }

  async updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel" | "metadata">>,
  ): Promise<void> {
    const sets: string[] = ["updated_at = ?"];
    const args: unknown[] = [new Date().toISOString()];
    if (patch.status !== undefined) {
      sets.push("status = ?");
      args.push(patch.status);
    }
    if (patch.error !== undefined) {
      sets.push("error = ?");
      args.push(patch.error ? json(patch.error) : null);
    }
    if (patch.preCheckpointId !== undefined) {
      sets.push("pre_checkpoint_id = ?");
      args.push(patch.preCheckpointId);
    }
    if (patch.preWriteCount !== undefined) {
      sets.push("pre_write_count = ?");
      args.push(patch.preWriteCount);
    }
    if (patch.cancel !== undefined) {
      sets.push("cancel = ?");
      args.push(patch.cancel);
    }
    if (patch.metadata !== undefined) {
      sets.push("metadata = ?");
      args.push(json(patch.metadata));
    }
    const update = this.#db.prepare(`UPDATE server_runs SET ${sets.join(", ")} WHERE run_id = ?`);
    this.#quick(() => update.run(...args, runId));
  }

  async deleteRun(runId: string): Promise<void> {
    this.#tx(() => {
      this.#stmt("DELETE FROM server_run_events WHERE run_id = ?").run(runId);
      this.#stmt("DELETE FROM server_runs WHERE run_id = ?").run(runId);
    });
  }

  #activeRuns(threadId: string): RunRecord[] {
    const rows = this.#stmt(
      "SELECT * FROM server_runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY seq",
    ).all(threadId) as RunRow[];
    return rows.map(runOf);
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return this.#activeRuns(threadId);
  }

  async runCounts(): Promise<Partial<Record<RunStatus, number>>> {
    const rows = this.#stmt(
      "SELECT status, COUNT(*) AS n FROM server_runs WHERE status IN ('pending', 'running') GROUP BY status",
    ).all() as Array<{ status: RunStatus; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  async claimNext(workerId: string): Promise<RunRecord | undefined> {
    return this.#tx(() => {
      // Fair shares: of each owner's oldest claimable run (the oldest pending run of a thread that runs
      // nothing), the one of the owner with the fewest running runs; ties by age. One owner's long queue
      // never holds another owner's run behind it for more than a run's length. The owners with queued
      // runs are read by skipping through the owner index (one seek per owner, not one row per run).
      const row = this.#stmt(
        `WITH RECURSIVE named(owner) AS (
           SELECT (SELECT owner FROM server_runs INDEXED BY server_runs_owner_pending
             WHERE status = 'pending' AND owner IS NOT NULL ORDER BY owner LIMIT 1)
           UNION ALL
           SELECT (SELECT owner FROM server_runs INDEXED BY server_runs_owner_pending
             WHERE status = 'pending' AND owner > named.owner ORDER BY owner LIMIT 1)
           FROM named WHERE named.owner IS NOT NULL),
         o(owner) AS (
           SELECT owner FROM named WHERE owner IS NOT NULL
           UNION ALL
           SELECT NULL WHERE EXISTS (SELECT 1 FROM server_runs INDEXED BY server_runs_owner_pending
             WHERE status = 'pending' AND owner IS NULL))
         SELECT r.* FROM o
         JOIN server_runs r ON r.seq = (
           SELECT p.seq FROM server_runs p WHERE p.status = 'pending' AND p.owner IS o.owner
             AND NOT EXISTS (SELECT 1 FROM server_runs x WHERE x.thread_id = p.thread_id AND x.status = 'running')
             AND NOT EXISTS (SELECT 1 FROM server_runs y INDEXED BY server_runs_thread WHERE y.thread_id = p.thread_id AND y.seq < p.seq AND y.status = 'pending')
           ORDER BY p.seq LIMIT 1)
         ORDER BY (SELECT COUNT(*) FROM server_runs b WHERE b.status = 'running' AND b.owner IS o.owner), r.seq
         LIMIT 1`,
      ).get() as RunRow | undefined;
      if (!row) return undefined;
      const now = new Date().toISOString();
      this.#stmt(
        "UPDATE server_runs SET status = 'running', attempt = attempt + 1, updated_at = ?, worker_id = ?, heartbeat_at = ? WHERE run_id = ?",
      ).run(now, workerId, Date.now(), row.run_id);
      return runOf({ ...row, status: "running", attempt: row.attempt + 1, updated_at: now });
    });
  }

  async pendingRunsOf(owner: string | null): Promise<number> {
    const row = this.#stmt("SELECT COUNT(*) AS n FROM server_runs WHERE status = 'pending' AND owner IS ?").get(
      owner,
    ) as { n: number };
    return Number(row.n);
  }

  /** Refuses the write unless the run is running under `attempt`. */
  #fence(runId: string, attempt: number): void {
    const row = this.#stmt("SELECT attempt, status FROM server_runs WHERE run_id = ?").get(runId) as
      | { attempt: number; status: string }
      | undefined;
    if (!row || row.attempt !== attempt || row.status !== "running") throw attemptLost(runId, attempt);
  }

  #append(runId: string, events: NewEvent[]): number[] {
    if (events.length === 0) return [];
    const row = this.#stmt("UPDATE server_runs SET last_seq = last_seq + ? WHERE run_id = ? RETURNING last_seq").get(
      events.length,
      runId,
    ) as { last_seq: number } | undefined;
    if (!row) throw new TrellisError("NOT_FOUND", `No run ${runId}.`);
    const first = row.last_seq - events.length + 1;
    const insert = this.#stmt("INSERT INTO server_run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)");
    return events.map((e, i) => {
      insert.run(runId, first + i, e.event, json(e.data));
      return first + i;
    });
  }

  async beginAttempt(
    runId: string,
    attempt: number,
    start: AttemptStart,
  ): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }> {
    return this.#tx(() => {
      this.#fence(runId, attempt);
      const now = new Date().toISOString();
      const run = this.#stmt(
        `UPDATE server_runs SET updated_at = ?,
           pre_checkpoint_id = CASE WHEN pre_recorded = 1 THEN pre_checkpoint_id ELSE ? END,
           pre_write_count = CASE WHEN pre_recorded = 1 THEN pre_write_count ELSE ? END,
           pre_recorded = 1
         WHERE run_id = ? RETURNING thread_id, pre_checkpoint_id, pre_write_count`,
      ).get(now, start.preCheckpointId, start.preWriteCount, runId) as {
        thread_id: string;
        pre_checkpoint_id: string | null;
        pre_write_count: number;
      };
      this.#stmt("UPDATE server_threads SET status = 'busy', graph_id = ?, updated_at = ? WHERE thread_id = ?").run(
        start.graphId,
        now,
        run.thread_id,
      );
      const seqs = this.#append(runId, start.events);
      return { seqs, preCheckpointId: run.pre_checkpoint_id, preWriteCount: run.pre_write_count };
    });
  }

  async appendEvents(runId: string, attempt: number, events: NewEvent[]): Promise<number[]> {
    return this.#tx(() => {
      this.#fence(runId, attempt);
      return this.#append(runId, events);
    });
  }

  async finishRun(runId: string, attempt: number, end: AttemptEnd): Promise<number[]> {
    return this.#tx(() => {
      this.#fence(runId, attempt);
      const seqs = this.#append(runId, end.events);
      const now = new Date().toISOString();
      const { thread_id } = this.#stmt(
        "UPDATE server_runs SET status = ?, error = ?, updated_at = ?, worker_id = NULL, metadata = COALESCE(?, metadata) WHERE run_id = ? RETURNING thread_id",
      ).get(end.status, end.error ? json(end.error) : null, now, end.metadata ? json(end.metadata) : null, runId) as {
        thread_id: string;
      };
      this.#settle(thread_id, end.threadStatus, now);
      if (end.stateChanged !== false) {
        this.#stmt("UPDATE server_threads SET state_changed_at = ? WHERE thread_id = ?").run(storeNow(), thread_id);
      }
      return seqs;
    });
  }

  /** Sets the thread's status after a run: `busy` while another run is queued or running. */
  #settle(threadId: string, outcome: ThreadStatus, now: string): void {
    const busy = this.#activeRuns(threadId).length > 0;
    this.#stmt("UPDATE server_threads SET status = ?, updated_at = ? WHERE thread_id = ?").run(
      busy ? "busy" : outcome,
      now,
      threadId,
    );
  }

  async releaseRun(runId: string, attempt: number): Promise<boolean> {
    const release = this.#stmt(
      "UPDATE server_runs SET status = 'pending', worker_id = NULL, updated_at = ? WHERE run_id = ? AND attempt = ? AND status = 'running'",
    );
    return this.#quick(() => release.run(new Date().toISOString(), runId, attempt).changes > 0);
  }

  async cancelRun(runId: string, action: CancelAction): Promise<CancelResult> {
    return this.#tx(() => {
      const row = this.#stmt("SELECT status, thread_id FROM server_runs WHERE run_id = ?").get(runId) as
        | { status: string; thread_id: string }
        | undefined;
      if (!row) return "missing";
      const now = new Date().toISOString();
      if (row.status === "pending") {
        this.#stmt("UPDATE server_runs SET status = 'interrupted', cancel = ?, updated_at = ? WHERE run_id = ?").run(
          action,
          now,
          runId,
        );
        const thread = this.#stmt("SELECT status FROM server_threads WHERE thread_id = ?").get(row.thread_id) as
          | { status: ThreadStatus }
          | undefined;
        if (thread) this.#settle(row.thread_id, thread.status === "busy" ? "idle" : thread.status, now);
        return "cancelled";
      }
      if (row.status === "running") {
        this.#stmt("UPDATE server_runs SET cancel = ? WHERE run_id = ?").run(action, runId);
        return "signalled";
      }
      return "finished";
    });
  }

  async heartbeat(workerId: string, runs: Array<{ runId: string; attempt: number }>): Promise<HeartbeatResult> {
    if (runs.length === 0) return { stops: [], lost: [] };
    return this.#tx(() => {
      const out: HeartbeatResult = { stops: [], lost: [] };
      const now = Date.now();
      for (const { runId, attempt } of runs) {
        const row = this.#stmt(
          "UPDATE server_runs SET heartbeat_at = ? WHERE run_id = ? AND attempt = ? AND worker_id = ? AND status = 'running' RETURNING cancel",
        ).get(now, runId, attempt, workerId) as { cancel: string | null } | undefined;
        if (!row) out.lost.push(runId);
        else if (row.cancel) out.stops.push({ runId, cancel: row.cancel as RunRecord["cancel"] });
      }
      return out;
    });
  }

  async requeueOrphans(staleMs?: number): Promise<RequeueResult> {
    return this.#tx(() => {
      const now = Date.now();
      const rows = (
        staleMs === undefined
          ? this.#stmt(
              "UPDATE server_runs SET status = 'pending', worker_id = NULL WHERE status = 'running' RETURNING run_id, thread_id, attempt, worker_id",
            ).all()
          : this.#stmt(
              `UPDATE server_runs SET status = 'pending', worker_id = NULL
               WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at <= ?)
               RETURNING run_id, thread_id, attempt, worker_id`,
            ).all(now - staleMs)
      ) as Array<{ run_id: string; thread_id: string; attempt: number; worker_id: string | null }>;
      // a thread whose run ended without its status change (a process that died in between, before
      // the two were one transaction) takes its last run's outcome
      const cutoff = new Date(now - (staleMs ?? 0)).toISOString();
      const repaired = this.#stmt(
        `UPDATE server_threads SET updated_at = ?, status = COALESCE((
           SELECT CASE r.status WHEN 'interrupted' THEN 'interrupted' WHEN 'error' THEN 'error' WHEN 'timeout' THEN 'error' ELSE 'idle' END
           FROM server_runs r WHERE r.thread_id = server_threads.thread_id ORDER BY r.seq DESC LIMIT 1), 'idle')
         WHERE status = 'busy' AND updated_at <= ?
           AND NOT EXISTS (SELECT 1 FROM server_runs a WHERE a.thread_id = server_threads.thread_id AND a.status IN ('pending', 'running'))
         RETURNING thread_id`,
      ).all(new Date(now).toISOString(), cutoff) as Array<{ thread_id: string }>;
      return {
        runs: rows.map((r) => ({ runId: r.run_id, threadId: r.thread_id, attempt: r.attempt, workerId: r.worker_id })),
        repairedThreads: repaired.map((r) => r.thread_id),
      };
    });
  }

  async sweepRuns(options: SweepOptions): Promise<number> {
    return this.#tx(() => {
      const cutoff = new Date(Date.now() - options.runsOlderThanMs).toISOString();
      const ids = (
        this.#stmt(
          "SELECT run_id FROM server_runs WHERE status NOT IN ('pending', 'running') AND updated_at < ? ORDER BY updated_at LIMIT ?",
        ).all(cutoff, options.limit) as Array<{ run_id: string }>
      ).map((r) => r.run_id);
      const events = this.#stmt("DELETE FROM server_run_events WHERE run_id = ?");
      const run = this.#stmt("DELETE FROM server_runs WHERE run_id = ?");
      for (const id of ids) {
        events.run(id);
        run.run(id);
      }
      return ids.length;
    });
  }

  async idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]> {
    const cutoff = new Date(Date.now() - options.idleForMs).toISOString();
    const rows = this.#stmt(
      `SELECT * FROM server_threads t WHERE t.status != 'busy' AND t.updated_at < ? AND t.updated_at > ?
         AND NOT EXISTS (SELECT 1 FROM server_runs a WHERE a.thread_id = t.thread_id AND a.status IN ('pending', 'running'))
       ORDER BY t.updated_at LIMIT ?`,
    ).all(cutoff, options.after ?? "", options.limit) as ThreadRow[];
    return rows.map(threadOf);
  }

  async exclusive(name: string, ttlMs: number, fn: () => Promise<void>): Promise<boolean> {
    const holder = randomUUID();
    const now = Date.now();
    const take = this.#stmt(
      `INSERT INTO server_leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE server_leases.expires_at < ?`,
    );
    const taken = this.#quick(() => take.run(name, holder, now + ttlMs, now).changes);
    if (!taken) return false;
    try {
      await fn();
    } finally {
      const free = this.#stmt("DELETE FROM server_leases WHERE name = ? AND holder = ?");
      this.#quick(() => free.run(name, holder));
    }
    return true;
  }

  async appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    return this.#tx(() => this.#append(runId, [{ event, data }])[0] as number);
  }

  async eventsAfter(runId: string, afterSeq: number, page?: number | EventPage): Promise<StoredEvent[]> {
    const { limit, maxBytes } = eventPageOf(page);
    // LIMIT -1: no limit; rows are read one at a time, so a byte budget stops before the next row is
    const rows = this.#stmt(
      "SELECT seq, event, data FROM server_run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    ).iterate(runId, afterSeq, limit ?? -1) as IterableIterator<{ seq: number; event: string; data: string }>;
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
    if (this.#db.open) await this.syncCommits();
    this.#stmts.clear();
  }
}
