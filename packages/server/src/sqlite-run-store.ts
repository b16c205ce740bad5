import { TrellisError } from "@trellis/checkpoint";
import type { Database, Statement } from "better-sqlite3";
import {
  type EnqueueResult,
  json,
  type MultitaskStrategy,
  type RunRecord,
  type RunStatus,
  type RunStore,
  runRowValues,
  type StoredEvent,
  type ThreadQuery,
  type ThreadRecord,
} from "./run-store.js";

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
];

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
 * The embedded {@link RunStore}: threads, runs, run events and the queue in the server's SQLite file.
 * Safe for one server process per file (runs left `running` are taken back at start).
 *
 * @example
 * const store = new SqliteRunStore(saver.database);
 * await store.requeueOrphans();
 */
export class SqliteRunStore implements RunStore {
  readonly #db: Database;
  readonly #stmts = new Map<string, Statement>();

  constructor(db: Database) {
    this.#db = db;
    migrateServerTables(db);
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
    return this.#db.transaction(fn).immediate();
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
    this.#db.prepare(`UPDATE server_threads SET ${sets.join(", ")} WHERE thread_id = ?`).run(...args, threadId);
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
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel">>,
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
    this.#db.prepare(`UPDATE server_runs SET ${sets.join(", ")} WHERE run_id = ?`).run(...args, runId);
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

  async claimNext(workerId: string): Promise<RunRecord | undefined> {
    return this.#tx(() => {
      const row = this.#stmt(
        `SELECT * FROM server_runs r WHERE r.status = 'pending' AND NOT EXISTS (
           SELECT 1 FROM server_runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
         ORDER BY r.seq LIMIT 1`,
      ).get() as RunRow | undefined;
      if (!row) return undefined;
      const now = new Date().toISOString();
      this.#stmt(
        "UPDATE server_runs SET status = 'running', attempt = attempt + 1, updated_at = ?, worker_id = ?, heartbeat_at = ? WHERE run_id = ?",
      ).run(now, workerId, Date.now(), row.run_id);
      return runOf({ ...row, status: "running", attempt: row.attempt + 1, updated_at: now });
    });
  }

  async heartbeat(workerId: string, runIds: string[]): Promise<Array<{ runId: string; cancel: RunRecord["cancel"] }>> {
    if (runIds.length === 0) return [];
    return this.#tx(() => {
      const out: Array<{ runId: string; cancel: RunRecord["cancel"] }> = [];
      for (const runId of runIds) {
        this.#stmt("UPDATE server_runs SET heartbeat_at = ? WHERE run_id = ? AND worker_id = ?").run(
          Date.now(),
          runId,
          workerId,
        );
        const row = this.#stmt("SELECT cancel FROM server_runs WHERE run_id = ?").get(runId) as
          | { cancel: string | null }
          | undefined;
        if (row?.cancel) out.push({ runId, cancel: row.cancel as RunRecord["cancel"] });
      }
      return out;
    });
  }

  async requeueOrphans(staleMs?: number): Promise<number> {
    if (staleMs === undefined) {
      return this.#stmt("UPDATE server_runs SET status = 'pending' WHERE status = 'running'").run().changes;
    }
    return this.#stmt(
      "UPDATE server_runs SET status = 'pending' WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < ?)",
    ).run(Date.now() - staleMs).changes;
  }

  async appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    return this.#tx(() => {
      const row = this.#stmt("SELECT MAX(seq) AS n FROM server_run_events WHERE run_id = ?").get(runId) as {
        n: number | null;
      };
      const seq = (row.n ?? 0) + 1;
      this.#stmt("INSERT INTO server_run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)").run(
        runId,
        seq,
        event,
        json(data),
      );
      return seq;
    });
  }

  async eventsAfter(runId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = this.#stmt(
      "SELECT seq, event, data FROM server_run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
    ).all(runId, afterSeq) as Array<{ seq: number; event: string; data: string }>;
    return rows.map((r) => ({ seq: r.seq, event: r.event, data: JSON.parse(r.data) }));
  }

  async close(): Promise<void> {
    this.#stmts.clear();
  }
}
