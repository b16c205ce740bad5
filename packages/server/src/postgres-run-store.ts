import { TrellisError } from "@trellis/checkpoint";
import pg from "pg";
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

/** Options of {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /** A pool to use (e.g. the PostgresSaver's); the store will not end it. */
  pool?: pg.Pool;
  connectionString?: string;
  /** Schema of the tables; created when missing. Default `trellis`. */
  schema?: string;
}

/** Numbered migrations of the server's tables; `S` is replaced by the quoted schema. */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE S.server_threads (
        thread_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, metadata JSONB NOT NULL,
        status TEXT NOT NULL, owner TEXT, graph_id TEXT, error TEXT);
      CREATE TABLE S.server_runs (
        seq BIGSERIAL PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, assistant_id TEXT NOT NULL,
        status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, metadata TEXT NOT NULL,
        kwargs TEXT NOT NULL, multitask_strategy TEXT NOT NULL, owner TEXT, attempt INTEGER NOT NULL DEFAULT 0,
        error TEXT, pre_checkpoint_id TEXT, pre_write_count INTEGER NOT NULL DEFAULT 0, cancel TEXT,
        worker_id TEXT, heartbeat_at BIGINT);
      CREATE INDEX server_runs_thread ON S.server_runs (thread_id, seq);
      CREATE INDEX server_runs_status ON S.server_runs (status, seq);
      CREATE TABLE S.server_run_events (
        run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq));
    `,
  },
];

/** Serializes queue changes (enqueue, claim) across every process sharing the database. */
const QUEUE_LOCK = 74_120_001;

type Row = Record<string, unknown>;
const parse = <T>(s: unknown): T => (s === null || s === undefined ? (null as T) : (JSON.parse(String(s)) as T));

function threadOf(r: Row): ThreadRecord {
  return {
    threadId: r.thread_id as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    status: r.status as ThreadRecord["status"],
    owner: (r.owner as string | null) ?? null,
    graphId: (r.graph_id as string | null) ?? null,
    error: parse(r.error),
  };
}

function runOf(r: Row): RunRecord {
  return {
    runId: r.run_id as string,
    threadId: r.thread_id as string,
    assistantId: r.assistant_id as string,
    status: r.status as RunStatus,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    metadata: parse(r.metadata) ?? {},
    kwargs: parse(r.kwargs),
    multitaskStrategy: r.multitask_strategy as MultitaskStrategy,
    owner: (r.owner as string | null) ?? null,
    attempt: Number(r.attempt),
    error: parse(r.error),
    preCheckpointId: (r.pre_checkpoint_id as string | null) ?? null,
    preWriteCount: Number(r.pre_write_count),
    cancel: (r.cancel as RunRecord["cancel"]) ?? null,
  };
}

/**
 * The scale-out {@link RunStore}: threads, runs, run events and the queue in PostgreSQL, shared by any
 * number of API and worker processes. Queue changes take one advisory lock, so two workers never run
 * two runs of one thread at once; runs of a worker that stops sending heartbeats go back to the queue.
 *
 * @example
 * const store = new PostgresRunStore({ pool: saver.pool, schema: "trellis" });
 * await store.setup();
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #s: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresRunStoreOptions) {
    this.#ownsPool = !options.pool;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    const schema = options.schema ?? "trellis";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
      throw new TrellisError("INVALID_CONFIG", `Bad schema name "${schema}".`);
    this.#s = `"${schema}"`;
  }

  /** Creates or migrates the tables (once; every method waits for it). */
  setup(): Promise<void> {
    this.#ready ??= this.#tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1)", [QUEUE_LOCK]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${this.#s}`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${this.#s}.server_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`,
      );
      const { rows } = await c.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${this.#s}.server_migrations`);
      const current = Number(rows[0]?.v ?? 0);
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        await c.query(m.sql.replaceAll("S.", `${this.#s}.`));
        await c.query(`INSERT INTO ${this.#s}.server_migrations (version, applied_at) VALUES ($1, $2)`, [
          m.version,
          new Date().toISOString(),
        ]);
      }
    });
    return this.#ready;
  }

  async #q(sql: string, args: unknown[] = []): Promise<Row[]> {
    await this.setup();
    return (await this.#pool.query(sql, args)).rows as Row[];
  }

  async #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async #locked<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.setup();
    return this.#tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1)", [QUEUE_LOCK]);
      return fn(c);
    });
  }

  async createThread(thread: ThreadRecord, ifExists: "raise" | "do_nothing"): Promise<ThreadRecord> {
    const rows = await this.#q(
      `INSERT INTO ${this.#s}.server_threads (thread_id, created_at, updated_at, metadata, status, owner, graph_id, error)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (thread_id) DO NOTHING RETURNING thread_id`,
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

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const [row] = await this.#q(`SELECT * FROM ${this.#s}.server_threads WHERE thread_id = $1`, [threadId]);
    return row ? threadOf(row) : undefined;
  }

  async updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, "metadata" | "status" | "graphId" | "error">>,
  ): Promise<void> {
    const sets = ["updated_at = $1"];
    const args: unknown[] = [new Date().toISOString()];
    const add = (column: string, value: unknown) => {
      args.push(value);
      sets.push(`${column} = $${args.length}`);
    };
    if (patch.metadata !== undefined) add("metadata", json(patch.metadata));
    if (patch.status !== undefined) add("status", patch.status);
    if (patch.graphId !== undefined) add("graph_id", patch.graphId);
    if (patch.error !== undefined) add("error", patch.error === null ? null : json(patch.error));
    args.push(threadId);
    await this.#q(`UPDATE ${this.#s}.server_threads SET ${sets.join(", ")} WHERE thread_id = $${args.length}`, args);
  }

  #where(query: Omit<ThreadQuery, "limit" | "offset">, args: unknown[]): string {
    const clauses: string[] = [];
    const add = (sql: (p: string) => string, value: unknown) => {
      args.push(value);
      clauses.push(sql(`$${args.length}`));
    };
    if (query.status) add((p) => `status = ${p}`, query.status);
    if (query.owner !== undefined) add((p) => `owner IS NOT DISTINCT FROM ${p}`, query.owner);
    if (query.ids?.length) add((p) => `thread_id = ANY(${p})`, query.ids);
    if (query.metadata && Object.keys(query.metadata).length)
      add((p) => `metadata @> ${p}::jsonb`, json(query.metadata));
    return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
  }

  async searchThreads(query: ThreadQuery): Promise<ThreadRecord[]> {
    const args: unknown[] = [];
    const where = this.#where(query, args);
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    args.push(query.limit, query.offset);
    const rows = await this.#q(
      `SELECT * FROM ${this.#s}.server_threads ${where} ORDER BY ${query.sortBy ?? "created_at"} ${order}, thread_id ${order}
       LIMIT $${args.length - 1} OFFSET $${args.length}`,
      args,
    );
    return rows.map(threadOf);
  }

  async countThreads(query: Omit<ThreadQuery, "limit" | "offset">): Promise<number> {
    const args: unknown[] = [];
    const where = this.#where(query, args);
    const [row] = await this.#q(`SELECT COUNT(*) AS n FROM ${this.#s}.server_threads ${where}`, args);
    return Number(row?.n ?? 0);
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.setup();
    await this.#tx(async (c) => {
      await c.query(
        `DELETE FROM ${this.#s}.server_run_events WHERE run_id IN (SELECT run_id FROM ${this.#s}.server_runs WHERE thread_id = $1)`,
        [threadId],
      );
      await c.query(`DELETE FROM ${this.#s}.server_runs WHERE thread_id = $1`, [threadId]);
      await c.query(`DELETE FROM ${this.#s}.server_threads WHERE thread_id = $1`, [threadId]);
    });
  }

  async enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult> {
    return this.#locked(async (c) => {
      const { rows } = await c.query(
        `SELECT * FROM ${this.#s}.server_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq`,
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
          await c.query(
            `UPDATE ${this.#s}.server_runs SET status = 'interrupted', cancel = $1, updated_at = $2 WHERE run_id = $3`,
            [strategy, now, queued.runId],
          );
          result.dropped.push({ ...queued, status: "interrupted", cancel: strategy });
        }
        if (result.running) {
          await c.query(`UPDATE ${this.#s}.server_runs SET cancel = $1 WHERE run_id = $2`, [
            strategy === "interrupt" ? "drain" : "rollback",
            result.running.runId,
          ]);
        }
      }
      await c.query(
        `INSERT INTO ${this.#s}.server_runs (run_id, thread_id, assistant_id, status, created_at, updated_at, metadata, kwargs,
           multitask_strategy, owner, attempt, error, pre_checkpoint_id, pre_write_count, cancel)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        runRowValues(run),
      );
      await c.query(`UPDATE ${this.#s}.server_threads SET status = 'busy', updated_at = $1 WHERE thread_id = $2`, [
        run.createdAt,
        run.threadId,
      ]);
      return result;
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const [row] = await this.#q(`SELECT * FROM ${this.#s}.server_runs WHERE run_id = $1`, [runId]);
    return row ? runOf(row) : undefined;
  }

  async listRuns(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]> {
    const rows = options.status
      ? await this.#q(
          `SELECT * FROM ${this.#s}.server_runs WHERE thread_id = $1 AND status = $2 ORDER BY seq DESC LIMIT $3 OFFSET $4`,
          [threadId, options.status, options.limit, options.offset],
        )
      : await this.#q(
          `SELECT * FROM ${this.#s}.server_runs WHERE thread_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`,
          [threadId, options.limit, options.offset],
        );
    return rows.map(runOf);
  }

  async updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel">>,
  ): Promise<void> {
    const sets = ["updated_at = $1"];
    const args: unknown[] = [new Date().toISOString()];
    const add = (column: string, value: unknown) => {
      args.push(value);
      sets.push(`${column} = $${args.length}`);
    };
    if (patch.status !== undefined) add("status", patch.status);
    if (patch.error !== undefined) add("error", patch.error ? json(patch.error) : null);
    if (patch.preCheckpointId !== undefined) add("pre_checkpoint_id", patch.preCheckpointId);
    if (patch.preWriteCount !== undefined) add("pre_write_count", patch.preWriteCount);
    if (patch.cancel !== undefined) add("cancel", patch.cancel);
    args.push(runId);
    await this.#q(`UPDATE ${this.#s}.server_runs SET ${sets.join(", ")} WHERE run_id = $${args.length}`, args);
  }

  async deleteRun(runId: string): Promise<void> {
    await this.setup();
    await this.#tx(async (c) => {
      await c.query(`DELETE FROM ${this.#s}.server_run_events WHERE run_id = $1`, [runId]);
      await c.query(`DELETE FROM ${this.#s}.server_runs WHERE run_id = $1`, [runId]);
    });
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    const rows = await this.#q(
      `SELECT * FROM ${this.#s}.server_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq`,
      [threadId],
    );
    return rows.map(runOf);
  }

  async claimNext(workerId: string): Promise<RunRecord | undefined> {
    return this.#locked(async (c) => {
      const { rows } = await c.query(
        `SELECT * FROM ${this.#s}.server_runs r WHERE r.status = 'pending' AND NOT EXISTS (
           SELECT 1 FROM ${this.#s}.server_runs x WHERE x.thread_id = r.thread_id AND x.status = 'running')
         ORDER BY r.seq LIMIT 1`,
      );
      const row = rows[0] as Row | undefined;
      if (!row) return undefined;
      const now = new Date().toISOString();
      await c.query(
        `UPDATE ${this.#s}.server_runs SET status = 'running', attempt = attempt + 1, updated_at = $1, worker_id = $2, heartbeat_at = $3
         WHERE run_id = $4`,
        [now, workerId, Date.now(), row.run_id],
      );
      return runOf({ ...row, status: "running", attempt: Number(row.attempt) + 1, updated_at: now });
    });
  }

  async heartbeat(workerId: string, runIds: string[]): Promise<Array<{ runId: string; cancel: RunRecord["cancel"] }>> {
    if (runIds.length === 0) return [];
    const rows = await this.#q(
      `UPDATE ${this.#s}.server_runs SET heartbeat_at = $1 WHERE run_id = ANY($2) AND worker_id = $3 RETURNING run_id, cancel`,
      [Date.now(), runIds, workerId],
    );
    return rows
      .filter((r) => r.cancel)
      .map((r) => ({ runId: r.run_id as string, cancel: r.cancel as RunRecord["cancel"] }));
  }

  async requeueOrphans(staleMs?: number): Promise<number> {
    return this.#locked(async (c) => {
      const result =
        staleMs === undefined
          ? await c.query(`UPDATE ${this.#s}.server_runs SET status = 'pending' WHERE status = 'running'`)
          : await c.query(
              `UPDATE ${this.#s}.server_runs SET status = 'pending'
               WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < $1)`,
              [Date.now() - staleMs],
            );
      return result.rowCount ?? 0;
    });
  }

  async appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    const [row] = await this.#q(
      `INSERT INTO ${this.#s}.server_run_events (run_id, seq, event, data)
       SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM ${this.#s}.server_run_events WHERE run_id = $1
       RETURNING seq`,
      [runId, event, json(data)],
    );
    return Number(row?.seq);
  }

  async eventsAfter(runId: string, afterSeq: number): Promise<StoredEvent[]> {
    const rows = await this.#q(
      `SELECT seq, event, data FROM ${this.#s}.server_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq`,
      [runId, afterSeq],
    );
    return rows.map((r) => ({ seq: Number(r.seq), event: r.event as string, data: parse(r.data) }));
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
