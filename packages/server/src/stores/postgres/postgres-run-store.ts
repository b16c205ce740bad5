import { randomUUID } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import pg from "pg";
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
import { migratePostgres, quotedSchema } from "./postgres-migrate.js";

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
  {
    version: 2,
    sql: `
      ALTER TABLE S.server_runs ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE S.server_runs ADD COLUMN pre_recorded BOOLEAN NOT NULL DEFAULT FALSE;
      UPDATE S.server_runs r SET
        last_seq = COALESCE((SELECT MAX(seq) FROM S.server_run_events e WHERE e.run_id = r.run_id), 0),
        pre_recorded = r.attempt > 0;
      CREATE UNIQUE INDEX server_runs_one_running ON S.server_runs (thread_id) WHERE status = 'running';
      CREATE INDEX server_runs_pending ON S.server_runs (seq) WHERE status = 'pending';
      CREATE INDEX server_runs_finished ON S.server_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE TABLE S.server_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL);
    `,
  },
  {
    version: 3,
    // a run's end in one round trip: the thread's lock, the fenced status change, the last events and
    // the thread's status (each statement of a volatile function sees what committed before it)
    sql: `
      CREATE FUNCTION S.server_finish_run(p_run TEXT, p_attempt INT, p_status TEXT, p_error TEXT, p_now TEXT,
          p_thread_status TEXT, p_events TEXT[], p_data TEXT[])
        RETURNS INT[] LANGUAGE plpgsql AS $fn$
      DECLARE
        v_thread TEXT;
        v_last INT;
        v_n INT := COALESCE(array_length(p_events, 1), 0);
      BEGIN
        SELECT thread_id INTO v_thread FROM S.server_runs WHERE run_id = p_run;
        IF v_thread IS NULL THEN RETURN NULL; END IF;
        PERFORM pg_advisory_xact_lock(74120002, hashtext(v_thread));
        UPDATE S.server_runs SET status = p_status, error = p_error, updated_at = p_now, worker_id = NULL,
            last_seq = last_seq + v_n
          WHERE run_id = p_run AND attempt = p_attempt AND status = 'running'
          RETURNING last_seq INTO v_last;
        IF v_last IS NULL THEN RETURN NULL; END IF;
        INSERT INTO S.server_run_events (run_id, seq, event, data)
          SELECT p_run, v_last - v_n + e.n, e.event, e.data
          FROM unnest(p_events, p_data) WITH ORDINALITY AS e(event, data, n);
        UPDATE S.server_threads SET updated_at = p_now, status = CASE WHEN EXISTS (
            SELECT 1 FROM S.server_runs a WHERE a.thread_id = v_thread AND a.status IN ('pending', 'running'))
            THEN 'busy' ELSE p_thread_status END
          WHERE thread_id = v_thread;
        RETURN ARRAY(SELECT generate_series(v_last - v_n + 1, v_last));
      END
      $fn$;
    `,
  },
  {
    version: 4,
    // when a thread's state last changed, on the database's clock: a resume is bound to the pause
    // pending when its request arrived
    sql: "ALTER TABLE S.server_threads ADD COLUMN state_changed_at DOUBLE PRECISION;",
  },
  {
    version: 5,
    // fair shares: each owner's queue and running runs (a null owner, auth off, is '' as no user is)
    sql: `
      CREATE INDEX server_runs_owner_pending ON S.server_runs ((COALESCE(owner, '')), seq) WHERE status = 'pending';
      CREATE INDEX server_runs_owner_running ON S.server_runs ((COALESCE(owner, ''))) WHERE status = 'running';
      CREATE INDEX server_threads_owner ON S.server_threads (owner);
    `,
  },
];

/** Serializes migrations across processes starting at once (taken only by `setup`). */
const MIGRATION_LOCK = 74_120_001;
/** First key of the per-thread advisory locks (the second is the thread id's hash). */
const THREAD_LOCK = 74_120_002;
/** Claimable runs of each owner a claim ranks (so claims at once by many workers find one each). */
const CLAIM_CANDIDATES = 16;
/** The database's clock in ms: heartbeats and orphan checks use one clock whatever the hosts' clocks. */
const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
/** The same clock with its sub-millisecond part: when a thread's state changed, and now. */
const NOW_MS_EXACT = "(extract(epoch from clock_timestamp()) * 1000)::double precision";

/**
 * Session settings every connection of the server's pool should carry (pass them as the pool's
 * `options`): a transaction left idle by a stalled process (SIGSTOP, a VM paused) is ended after 5 s,
 * releasing its locks, and no statement waits more than 10 s for a lock.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, options: POSTGRES_SESSION_OPTIONS });
 * const store = new PostgresRunStore({ pool });
 */
export const POSTGRES_SESSION_OPTIONS = "-c idle_in_transaction_session_timeout=5000 -c lock_timeout=10000";

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
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #s: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresRunStoreOptions) {
    this.#ownsPool = !options.pool;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    this.#s = quotedSchema(options.schema ?? "trellis");
  }

  /** Creates or migrates the tables (once; every method waits for it). */
  setup(): Promise<void> {
    this.#ready ??= this.#tx(async (c) => {
      await migratePostgres(c, this.#s, "server_migrations", MIGRATION_LOCK, MIGRATIONS);
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

  /** A transaction holding the thread's advisory lock (enqueue, finish, cancel of one thread). */
  async #threadTx<T>(threadId: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.setup();
    return this.#tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [THREAD_LOCK, threadId]);
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

  async markStateChanged(threadId: string): Promise<void> {
    await this.#q(`UPDATE ${this.#s}.server_threads SET state_changed_at = ${NOW_MS_EXACT} WHERE thread_id = $1`, [
      threadId,
    ]);
  }

  async stateClock(threadId: string): Promise<StateClock> {
    const [row] = await this.#q(
      `SELECT ${NOW_MS_EXACT} AS now, (SELECT state_changed_at FROM ${this.#s}.server_threads WHERE thread_id = $1) AS changed_at`,
      [threadId],
    );
    const changed = row?.changed_at;
    return { changedAt: changed === null || changed === undefined ? null : Number(changed), now: Number(row?.now) };
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
    return this.#threadTx(run.threadId, async (c) => {
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
          // claims take no thread lock: a queued run may have started meanwhile
          const { rowCount } = await c.query(
            `UPDATE ${this.#s}.server_runs SET status = 'interrupted', cancel = $1, updated_at = $2 WHERE run_id = $3 AND status = 'pending'`,
            [strategy, now, queued.runId],
          );
          if (rowCount) result.dropped.push({ ...queued, status: "interrupted", cancel: strategy });
          else result.running ??= { ...queued, status: "running" };
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
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel" | "metadata">>,
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
    if (patch.metadata !== undefined) add("metadata", json(patch.metadata));
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

  async runCounts(): Promise<Partial<Record<RunStatus, number>>> {
    const rows = await this.#q(
      `SELECT status, COUNT(*) AS n FROM ${this.#s}.server_runs WHERE status IN ('pending', 'running') GROUP BY status`,
      [],
    );
    return Object.fromEntries(rows.map((r) => [r.status as RunStatus, Number(r.n)]));
  }

  async activeRuns(threadId: string): Promise<RunRecord[]> {
    const rows = await this.#q(
      `SELECT * FROM ${this.#s}.server_runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq`,
      [threadId],
    );
    return rows.map(runOf);
  }

  async claimNext(workerId: string): Promise<RunRecord | undefined> {
    await this.setup();
    // One statement, no lock held past it. Fair shares: each owner's first claimable runs (the oldest
    // pending run of a thread that runs nothing) rank by the owner's running runs plus their place in the
    // owner's queue, ties by age; rows another claim holds are skipped. The owners with queued runs are
    // read by skipping through the owner index (one seek per owner, not one row per run). Two claims of one thread's runs at
    // once: the unique index on running runs lets one win; the other tries again.
    for (let tries = 0; ; tries++) {
      try {
        const { rows } = await this.#pool.query(
          `WITH RECURSIVE d(k) AS (
             (SELECT COALESCE(owner, '') FROM ${this.#s}.server_runs WHERE status = 'pending'
               ORDER BY COALESCE(owner, '') LIMIT 1)
             UNION ALL
             SELECT (SELECT COALESCE(owner, '') FROM ${this.#s}.server_runs
               WHERE status = 'pending' AND COALESCE(owner, '') > d.k ORDER BY COALESCE(owner, '') LIMIT 1)
             FROM d WHERE d.k IS NOT NULL),
           o AS MATERIALIZED (
             SELECT d.k, (SELECT COUNT(*) FROM ${this.#s}.server_runs b
               WHERE b.status = 'running' AND COALESCE(b.owner, '') = d.k) AS busy
             FROM d WHERE d.k IS NOT NULL),
           cand AS (
             SELECT q.seq, q.n + o.busy AS prio
             FROM o CROSS JOIN LATERAL (
               SELECT f.seq, ROW_NUMBER() OVER (ORDER BY f.seq) AS n FROM (
                 SELECT p.seq FROM ${this.#s}.server_runs p
                 WHERE p.status = 'pending' AND COALESCE(p.owner, '') = o.k
                   AND NOT EXISTS (SELECT 1 FROM ${this.#s}.server_runs x WHERE x.thread_id = p.thread_id AND x.status = 'running')
                   AND NOT EXISTS (SELECT 1 FROM ${this.#s}.server_runs y WHERE y.thread_id = p.thread_id AND y.status = 'pending' AND y.seq < p.seq)
                 ORDER BY p.seq LIMIT ${CLAIM_CANDIDATES}) f) q),
           c AS (
             SELECT r.run_id FROM ${this.#s}.server_runs r JOIN cand ON r.seq = cand.seq
             WHERE r.status = 'pending' ORDER BY cand.prio, cand.seq LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
           UPDATE ${this.#s}.server_runs u SET status = 'running', attempt = u.attempt + 1, updated_at = $1, worker_id = $2,
             heartbeat_at = ${NOW_MS}
           FROM c WHERE u.run_id = c.run_id AND u.status = 'pending'
           RETURNING u.*`,
          [new Date().toISOString(), workerId],
        );
        const row = rows[0] as Row | undefined;
        return row ? runOf(row) : undefined;
      } catch (error) {
        if ((error as { code?: string }).code !== "23505" || tries >= 5) throw error;
      }
    }
  }

  async pendingRunsOf(owner: string | null): Promise<number> {
    const [row] = await this.#q(
      `SELECT COUNT(*) AS n FROM ${this.#s}.server_runs WHERE status = 'pending' AND COALESCE(owner, '') = $1`,
      [owner ?? ""],
    );
    return Number(row?.n ?? 0);
  }

  /**
   * One statement that appends `events` to the run's stream only while `attempt` runs it: the run row's
   * `last_seq` is raised under its row lock in the same statement, so numbers never collide or skip.
   */
  async #append(q: pg.Pool | pg.PoolClient, runId: string, attempt: number | null, events: NewEvent[]) {
    const { rows } = await q.query(
      `WITH r AS (
         UPDATE ${this.#s}.server_runs SET last_seq = last_seq + $2
         WHERE run_id = $1 AND ($3::int IS NULL OR (attempt = $3 AND status = 'running'))
         RETURNING last_seq)
       INSERT INTO ${this.#s}.server_run_events (run_id, seq, event, data)
       SELECT $1, r.last_seq - $2 + e.n, e.event, e.data
       FROM r, unnest($4::text[], $5::text[]) WITH ORDINALITY AS e(event, data, n)
       RETURNING seq`,
      [runId, events.length, attempt, events.map((e) => e.event), events.map((e) => json(e.data))],
    );
    if (rows.length !== events.length) {
      throw attempt === null ? new TrellisError("NOT_FOUND", `No run ${runId}.`) : attemptLost(runId, attempt);
    }
    return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
  }

  async beginAttempt(
    runId: string,
    attempt: number,
    start: AttemptStart,
  ): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }> {
    await this.setup();
    // one statement: fenced run update, thread busy under the run's graph, first events
    const { rows } = await this.#pool.query(
      `WITH r AS (
         UPDATE ${this.#s}.server_runs SET updated_at = $3, last_seq = last_seq + $6,
           pre_checkpoint_id = CASE WHEN pre_recorded THEN pre_checkpoint_id ELSE $4 END,
           pre_write_count = CASE WHEN pre_recorded THEN pre_write_count ELSE $5 END,
           pre_recorded = TRUE
         WHERE run_id = $1 AND attempt = $2 AND status = 'running'
         RETURNING thread_id, last_seq, pre_checkpoint_id, pre_write_count),
       t AS (
         UPDATE ${this.#s}.server_threads SET status = 'busy', graph_id = $7, updated_at = $3
         WHERE thread_id = (SELECT thread_id FROM r) RETURNING 1),
       e AS (
         INSERT INTO ${this.#s}.server_run_events (run_id, seq, event, data)
         SELECT $1, r.last_seq - $6 + x.n, x.event, x.data
         FROM r, unnest($8::text[], $9::text[]) WITH ORDINALITY AS x(event, data, n)
         RETURNING seq)
       SELECT (SELECT COUNT(*) FROM r) AS owned, (SELECT COUNT(*) FROM t) AS threads,
         (SELECT pre_checkpoint_id FROM r) AS pre_checkpoint_id, (SELECT pre_write_count FROM r) AS pre_write_count,
         COALESCE(array_agg(e.seq), '{}') AS seqs FROM e`,
      [
        runId,
        attempt,
        new Date().toISOString(),
        start.preCheckpointId,
        start.preWriteCount,
        start.events.length,
        start.graphId,
        start.events.map((e) => e.event),
        start.events.map((e) => json(e.data)),
      ],
    );
    const row = rows[0] as Row;
    if (Number(row.owned) !== 1) throw attemptLost(runId, attempt);
    return {
      seqs: (row.seqs as Array<number | string>).map(Number).sort((a, b) => a - b),
      preCheckpointId: (row.pre_checkpoint_id as string | null) ?? null,
      preWriteCount: Number(row.pre_write_count),
    };
  }

  async appendEvents(runId: string, attempt: number, events: NewEvent[]): Promise<number[]> {
    if (events.length === 0) return [];
    await this.setup();
    return this.#append(this.#pool, runId, attempt, events);
  }

  async finishRun(runId: string, attempt: number, end: AttemptEnd): Promise<number[]> {
    // the metadata (usage, timeline) before the end, so a client that sees the end sees it; a write of
    // its own, only while the attempt still owns the running run (server_finish_run takes no metadata)
    if (end.metadata) {
      await this.#q(
        `UPDATE ${this.#s}.server_runs SET metadata = $3 WHERE run_id = $1 AND attempt = $2 AND status = 'running'`,
        [runId, attempt, json(end.metadata)],
      );
    }
    if (end.stateChanged !== false) {
      // before the end (its own statement): whoever sees the run ended sees the change, and a stamp of
      // an attempt that turns out stale only makes a later plain resume refuse where it could bind
      await this.#q(
        `UPDATE ${this.#s}.server_threads SET state_changed_at = ${NOW_MS_EXACT}
         WHERE thread_id = (SELECT thread_id FROM ${this.#s}.server_runs WHERE run_id = $1 AND attempt = $2 AND status = 'running')`,
        [runId, attempt],
      );
    }
    const [row] = await this.#q(`SELECT ${this.#s}.server_finish_run($1, $2, $3, $4, $5, $6, $7, $8) AS seqs`, [
      runId,
      attempt,
      end.status,
      end.error ? json(end.error) : null,
      new Date().toISOString(),
      end.threadStatus,
      end.events.map((e) => e.event),
      end.events.map((e) => json(e.data)),
    ]);
    const seqs = row?.seqs as Array<number | string> | null;
    if (!seqs) throw attemptLost(runId, attempt);
    return seqs.map(Number);
  }

  /** Sets the thread's status after a run: `busy` while another run is queued or running. */
  async #settle(c: pg.PoolClient, threadId: string, outcome: ThreadStatus, now: string): Promise<void> {
    await c.query(
      `UPDATE ${this.#s}.server_threads SET updated_at = $3, status = CASE WHEN EXISTS (
         SELECT 1 FROM ${this.#s}.server_runs a WHERE a.thread_id = $1 AND a.status IN ('pending', 'running'))
         THEN 'busy' ELSE $2 END
       WHERE thread_id = $1`,
      [threadId, outcome, now],
    );
  }

  async releaseRun(runId: string, attempt: number): Promise<boolean> {
    const rows = await this.#q(
      `UPDATE ${this.#s}.server_runs SET status = 'pending', worker_id = NULL, updated_at = $3
       WHERE run_id = $1 AND attempt = $2 AND status = 'running' RETURNING 1`,
      [runId, attempt, new Date().toISOString()],
    );
    return rows.length > 0;
  }

  async cancelRun(runId: string, action: CancelAction): Promise<CancelResult> {
    const run = await this.getRun(runId);
    if (!run) return "missing";
    return this.#threadTx(run.threadId, async (c) => {
      const now = new Date().toISOString();
      const pending = await c.query(
        `UPDATE ${this.#s}.server_runs SET status = 'interrupted', cancel = $2, updated_at = $3
         WHERE run_id = $1 AND status = 'pending'`,
        [runId, action, now],
      );
      if (pending.rowCount) {
        const { rows } = await c.query(`SELECT status FROM ${this.#s}.server_threads WHERE thread_id = $1`, [
          run.threadId,
        ]);
        const status = rows[0]?.status as ThreadStatus | undefined;
        if (status) await this.#settle(c, run.threadId, status === "busy" ? "idle" : status, now);
        return "cancelled";
      }
      const running = await c.query(
        `UPDATE ${this.#s}.server_runs SET cancel = $2 WHERE run_id = $1 AND status = 'running'`,
        [runId, action],
      );
      return running.rowCount ? "signalled" : "finished";
    });
  }

  async heartbeat(workerId: string, runs: Array<{ runId: string; attempt: number }>): Promise<HeartbeatResult> {
    if (runs.length === 0) return { stops: [], lost: [] };
    const rows = await this.#q(
      `UPDATE ${this.#s}.server_runs u SET heartbeat_at = ${NOW_MS}
       FROM unnest($1::text[], $2::int[]) AS h(run_id, attempt)
       WHERE u.run_id = h.run_id AND u.attempt = h.attempt AND u.worker_id = $3 AND u.status = 'running'
       RETURNING u.run_id, u.cancel`,
      [runs.map((r) => r.runId), runs.map((r) => r.attempt), workerId],
    );
    const owned = new Set(rows.map((r) => r.run_id as string));
    return {
      stops: rows
        .filter((r) => r.cancel)
        .map((r) => ({ runId: r.run_id as string, cancel: r.cancel as RunRecord["cancel"] })),
      lost: runs.filter((r) => !owned.has(r.runId)).map((r) => r.runId),
    };
  }

  async requeueOrphans(staleMs?: number): Promise<RequeueResult> {
    const rows = await this.#q(
      `UPDATE ${this.#s}.server_runs SET status = 'pending', worker_id = NULL
       WHERE status = 'running' AND ($1::bigint IS NULL OR heartbeat_at IS NULL OR heartbeat_at <= ${NOW_MS} - $1::bigint)
       RETURNING run_id, thread_id, attempt, worker_id`,
      [staleMs ?? null],
    );
    // a thread whose run ended without its status change (a process that died in between, before the
    // two were one transaction) takes its last run's outcome; recent changes are left to their writer
    const cutoff = new Date(Date.now() - (staleMs ?? 0)).toISOString();
    const repaired = await this.#q(
      `UPDATE ${this.#s}.server_threads t SET updated_at = $2, status = COALESCE((
         SELECT CASE r.status WHEN 'interrupted' THEN 'interrupted' WHEN 'error' THEN 'error' WHEN 'timeout' THEN 'error' ELSE 'idle' END
         FROM ${this.#s}.server_runs r WHERE r.thread_id = t.thread_id ORDER BY r.seq DESC LIMIT 1), 'idle')
       WHERE t.status = 'busy' AND t.updated_at <= $1
         AND NOT EXISTS (SELECT 1 FROM ${this.#s}.server_runs a WHERE a.thread_id = t.thread_id AND a.status IN ('pending', 'running'))
       RETURNING t.thread_id`,
      [cutoff, new Date().toISOString()],
    );
    return {
      runs: rows.map((r) => ({
        runId: r.run_id as string,
        threadId: r.thread_id as string,
        attempt: Number(r.attempt),
        workerId: (r.worker_id as string | null) ?? null,
      })),
      repairedThreads: repaired.map((r) => r.thread_id as string),
    };
  }

  async sweepRuns(options: SweepOptions): Promise<number> {
    const cutoff = new Date(Date.now() - options.runsOlderThanMs).toISOString();
    return this.#tx(async (c) => {
      const { rows } = await c.query(
        `DELETE FROM ${this.#s}.server_runs WHERE run_id IN (
           SELECT run_id FROM ${this.#s}.server_runs WHERE status NOT IN ('pending', 'running') AND updated_at < $1
           ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING run_id`,
        [cutoff, options.limit],
      );
      if (rows.length) {
        await c.query(`DELETE FROM ${this.#s}.server_run_events WHERE run_id = ANY($1)`, [rows.map((r) => r.run_id)]);
      }
      return rows.length;
    });
  }

  async idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]> {
    const cutoff = new Date(Date.now() - options.idleForMs).toISOString();
    const rows = await this.#q(
      `SELECT * FROM ${this.#s}.server_threads t WHERE t.status <> 'busy' AND t.updated_at < $1 AND t.updated_at > $2
         AND NOT EXISTS (SELECT 1 FROM ${this.#s}.server_runs a WHERE a.thread_id = t.thread_id AND a.status IN ('pending', 'running'))
       ORDER BY t.updated_at LIMIT $3`,
      [cutoff, options.after ?? "", options.limit],
    );
    return rows.map(threadOf);
  }

  async exclusive(name: string, ttlMs: number, fn: () => Promise<void>): Promise<boolean> {
    const holder = randomUUID();
    const taken = await this.#q(
      `INSERT INTO ${this.#s}.server_leases (name, holder, expires_at) VALUES ($1, $2, ${NOW_MS} + $3)
       ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
       WHERE ${this.#s}.server_leases.expires_at < ${NOW_MS}
       RETURNING 1`,
      [name, holder, ttlMs],
    );
    if (!taken.length) return false;
    try {
      await fn();
    } finally {
      await this.#q(`DELETE FROM ${this.#s}.server_leases WHERE name = $1 AND holder = $2`, [name, holder]).catch(
        () => undefined,
      );
    }
    return true;
  }

  async appendEvent(runId: string, event: string, data: unknown): Promise<number> {
    await this.setup();
    return (await this.#append(this.#pool, runId, null, [{ event, data }]))[0] as number;
  }

  async eventsAfter(runId: string, afterSeq: number, page?: number | EventPage): Promise<StoredEvent[]> {
    const { limit, maxBytes } = eventPageOf(page);
    // LIMIT NULL: no limit; with a byte budget, the rows whose data starts within it (sizes summed in
    // the database, so the rows past it never leave it)
    const rows = await this.#q(
      maxBytes === null
        ? `SELECT seq, event, data FROM ${this.#s}.server_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`
        : `SELECT seq, event, data FROM (
             SELECT seq, event, data, sum(octet_length(data)) OVER (ORDER BY seq) - octet_length(data) AS before
             FROM ${this.#s}.server_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
           ) AS page WHERE before < $4 ORDER BY seq`,
      maxBytes === null ? [runId, afterSeq, limit] : [runId, afterSeq, limit, maxBytes],
    );
    return rows.map((r) => ({ seq: Number(r.seq), event: r.event as string, data: parse(r.data) }));
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
