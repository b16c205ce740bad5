/**
 * The Postgres run store's connection: its pool, its schema (migrated once before the first
 * statement), transactions and the per-thread advisory lock, the database's clock, and the SQL
 * dialect the shared run store logic speaks to it.
 */
import pg from "pg";
import { json } from "../run-store.js";
import type { Row, SqlDialect, SqlExec } from "../sql/sql-dialect.js";
import { migratePostgres, quotedSchema } from "./postgres-migrate.js";
import { MIGRATION_LOCK, MIGRATIONS } from "./postgres-run-migrations.js";

/** First key of the per-thread advisory locks (the second is the thread id's hash). */
export const THREAD_LOCK = 74_120_002;
/** The database's clock in ms: heartbeats and orphan checks use one clock whatever the hosts' clocks. */
export const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
/** The same clock with its sub-millisecond part: when a thread's state changed, and now. */
export const NOW_MS_EXACT = "(extract(epoch from clock_timestamp()) * 1000)::double precision";

/**
 * An expression that makes the statement's transaction commit without waiting for the WAL flush
 * (`synchronous_commit = off` until the transaction ends): a single bookkeeping statement names it in
 * its `RETURNING` or select list, so it runs for every row the statement writes, at no extra round trip.
 * A statement that forgets it commits synchronously: slower, never less safe.
 */
export const QUICK_COMMIT = "set_config('synchronous_commit', 'off', true)";

/**
 * How many commits a {@link PostgresConnection} made each way: bookkeeping transactions it began
 * with `synchronous_commit = off` (single statements that name {@link QUICK_COMMIT} are not counted),
 * and the syncs before answers that found unflushed WAL and committed synchronously.
 *
 * @example
 * const before = store.commitCounts.synced;
 * await store.syncCommits();
 */
export interface PostgresCommitCounts {
  quick: number;
  synced: number;
}

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

/**
 * Postgres's spelling of what the shared run store logic writes: `$n` arguments, schema-qualified
 * tables, `IS NOT DISTINCT FROM` for a nullable column, `= ANY` of an array, and a `jsonb`
 * containment for a metadata filter.
 *
 * @example
 * const tables = new SqlRunTables(postgresDialect('"trellis"'), connection);
 */
export function postgresDialect(schema: string): SqlDialect {
  return {
    table: (name) => `${schema}.${name}`,
    param: (n) => `$${n}`,
    sameAs: (column, p) => `${column} IS NOT DISTINCT FROM ${p}`,
    oneOf: (column, values, args) => `${column} = ANY(${args.p([...values])}::text[])`,
    metadataMatches: (metadata, args) =>
      Object.keys(metadata).length ? [`metadata @> ${args.p(json(metadata))}::jsonb`] : [],
    containsText: (column, p) => `strpos(lower(${column}), lower(${p})) > 0`,
    isTrue: (column) => column,
  };
}

/**
 * The server's tables in one Postgres schema: a pool (its own, or a saver's it will not end), the
 * migration run once, plain statements, transactions and transactions under a thread's lock.
 *
 * @example
 * const c = new PostgresConnection({ pool: saver.pool, schema: "trellis" });
 * await c.threadTx(threadId, (client) => client.query(`UPDATE ${c.s}.server_threads SET status = 'busy'`));
 * @internal
 */
export class PostgresConnection implements SqlExec {
  readonly pool: pg.Pool;
  /** The quoted schema, as queries write it. */
  readonly s: string;
  readonly #ownsPool: boolean;
  #ready: Promise<void> | undefined;
  /** Commits made each way since the connection opened. */
  readonly commitCounts: PostgresCommitCounts = { quick: 0, synced: 0 };

  constructor(options: {
    pool?: pg.Pool | undefined;
    connectionString?: string | undefined;
    schema?: string | undefined;
  }) {
    this.#ownsPool = !options.pool;
    this.pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    this.s = quotedSchema(options.schema ?? "trellis");
  }

  /** Creates or migrates the tables (once; every statement waits for it). */
  setup(): Promise<void> {
    this.#ready ??= this.tx(async (c) => {
      await migratePostgres(c, this.s, "server_migrations", MIGRATION_LOCK, MIGRATIONS);
    });
    return this.#ready;
  }

  /** One statement on the pool, after the setup. */
  async q(sql: string, args: readonly unknown[] = []): Promise<Row[]> {
    await this.setup();
    return (await this.pool.query(sql, args as unknown[])).rows as Row[];
  }

  /**
   * `fn` in one transaction on one client of the pool, committed with `synchronous_commit = off` (set
   * in the same round trip as its `BEGIN`): the commit is visible and survives a crash of this process
   * when it returns, and reaches the disk with the WAL writer or the next {@link syncCommits}.
   */
  async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN; SET LOCAL synchronous_commit = off");
      this.commitCounts.quick++;
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
  async threadTx<T>(threadId: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.setup();
    return this.tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [THREAD_LOCK, threadId]);
      return fn(c);
    });
  }

  all(sql: string, args: readonly unknown[]): Promise<Row[]> {
    return this.q(sql, args);
  }

  /** One write statement (of the shared run store logic), committed like {@link tx}. */
  async run(sql: string, args: readonly unknown[]): Promise<void> {
    await this.setup();
    await this.tx((c) => c.query(sql, args as unknown[]));
  }

  /**
   * Makes every commit made so far in the database cluster durable — this process's and any other's,
   * the run store's quick commits and everything before them: when the WAL is not flushed up to its
   * current end, one synchronous commit (of a one-row table), whose flush carries every earlier WAL
   * record with it. One round trip; no commit when the WAL writer has flushed it all already.
   */
  async syncCommits(): Promise<void> {
    const [row] = await this.q(`SELECT ${this.s}.server_sync_commits() AS synced`);
    if (row?.synced) this.commitCounts.synced++;
  }

  async batch(statements: ReadonlyArray<readonly [sql: string, args: readonly unknown[]]>): Promise<void> {
    await this.setup();
    await this.tx(async (c) => {
      for (const [sql, args] of statements) await c.query(sql, args as unknown[]);
    });
  }

  /** Ends the pool when the store made it. */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.pool.end();
  }
}
