import {
  ItemStore,
  type ItemStoreOptions,
  type StoreBackend,
  type StoreCondition,
  type StoreRow,
  type StoreScanOptions,
  TrellisError,
} from "@trellis/checkpoint";
import pg from "pg";
import { PgRunner } from "./postgres-connection.js";
import { quoteSchema } from "./postgres-migrations.js";

/**
 * The store's tables, as numbered migrations recorded in `trellis_store_migrations` of the schema (apart
 * from the saver's). Never edit a shipped migration: add the next number.
 * @internal
 */
export const POSTGRES_STORE_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: (s: string) => string }> = [
  {
    version: 1,
    name: "store items",
    sql: (s) => `
      CREATE TABLE ${s}.store_items (
        ns          text COLLATE "C" NOT NULL,
        key         text COLLATE "C" NOT NULL,
        value       text NOT NULL,
        created_at  bigint NOT NULL,
        updated_at  bigint NOT NULL,
        ttl_minutes double precision,
        expires_at  bigint,
        vectors     text,
        PRIMARY KEY (ns, key)
      );
      CREATE INDEX store_items_expiry ON ${s}.store_items (expires_at) WHERE expires_at IS NOT NULL;`,
  },
  {
    version: 2,
    name: "index items by update time for the newest-first page",
    sql: (s) => `CREATE INDEX store_items_updated ON ${s}.store_items (updated_at DESC, ns, key);`,
  },
];

const LIVE = (now: string) => `(expires_at IS NULL OR expires_at > ${now})`;
const UNDER = "($1 = '' OR ns = $1 OR (ns >= $1 || '.' AND ns < $1 || '/'))";
const COLUMNS = "ns, key, value, created_at, updated_at, ttl_minutes, expires_at, vectors";

interface Row {
  ns: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
  ttl_minutes: number | null;
  expires_at: string | null;
  vectors: string | null;
}

function fromRow(r: Row): StoreRow {
  return {
    namespace: r.ns,
    key: r.key,
    value: JSON.parse(r.value) as Record<string, unknown>,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    ttlMinutes: r.ttl_minutes,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    vectors: r.vectors === null ? null : (JSON.parse(r.vectors) as number[][]),
  };
}

/**
 * One filter condition as SQL over `doc` (the row's value as jsonb), exactly as the store's filter
 * means it: jsonb equality is typed (`1` is not `true`, a missing field is not `null`), and an order
 * holds between two numbers (as numeric) or two strings (code point order: `COLLATE "C"`). CASE keeps
 * a cast from running on a value of another type.
 */
function conditionSql(c: StoreCondition, field: string, p: (v: unknown) => string): string {
  const at = `(doc -> ${field})`;
  if (c.op === "eq") return `COALESCE(${at} = ${p(JSON.stringify(c.value))}::jsonb, false)`;
  if (c.op === "ne") return `NOT COALESCE(${at} = ${p(JSON.stringify(c.value))}::jsonb, false)`;
  const cmp = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[c.op];
  if (typeof c.value === "number") {
    return `CASE WHEN jsonb_typeof(${at}) = 'number' THEN (${at})::numeric ${cmp} ${p(c.value)}::numeric ELSE false END`;
  }
  return `CASE WHEN jsonb_typeof(${at}) = 'string' THEN (${at} #>> '{}') COLLATE "C" ${cmp} ${p(c.value)}::text COLLATE "C" ELSE false END`;
}

class PostgresStoreBackend implements StoreBackend {
  readonly pool: pg.Pool;
  readonly #owns: boolean;
  readonly #schema: string;
  readonly #db: PgRunner;
  readonly #t: string;
  #ready: Promise<number> | undefined;

  constructor(options: PostgresStoreOptions) {
    this.#schema = options.schema ?? "trellis";
    this.#t = `${quoteSchema(this.#schema)}.store_items`;
    this.#owns = !options.pool;
    this.pool =
      options.pool ??
      new pg.Pool({ ...options.poolConfig, connectionString: options.connectionString } as pg.PoolConfig);
    // an idle client the server dropped must not crash the process; the pool replaces it
    if (this.#owns) this.pool.on("error", () => {});
    this.#db = new PgRunner(this.pool, options.retries ?? 3);
  }

  setup(): Promise<number> {
    this.#ready ??= migrateStore(this.pool, this.#schema).catch((error) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #readyNow(): Promise<void> {
    await this.setup();
  }

  async read(ns: string, key: string, now: number): Promise<StoreRow | undefined> {
    await this.#readyNow();
    const rows = await this.#db.query<Row>(
      `SELECT ${COLUMNS} FROM ${this.#t} WHERE ns = $1 AND key = $2 AND ${LIVE("$3")}`,
      [ns, key, now],
    );
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async write(row: StoreRow): Promise<void> {
    await this.#readyNow();
    await this.#db.query(
      `INSERT INTO ${this.#t} AS t (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (ns, key) DO UPDATE SET
         created_at = CASE WHEN t.expires_at IS NOT NULL AND t.expires_at <= excluded.updated_at
                           THEN excluded.created_at ELSE t.created_at END,
         value = excluded.value, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes,
         expires_at = excluded.expires_at, vectors = excluded.vectors`,
      [
        row.namespace,
        row.key,
        JSON.stringify(row.value),
        row.createdAt,
        row.updatedAt,
        row.ttlMinutes,
        row.expiresAt,
        row.vectors === null ? null : JSON.stringify(row.vectors),
      ],
    );
  }

  async remove(ns: string, key: string): Promise<void> {
    await this.#readyNow();
    await this.#db.query(`DELETE FROM ${this.#t} WHERE ns = $1 AND key = $2`, [ns, key]);
  }

  async scan(prefix: string, now: number, options: StoreScanOptions): Promise<StoreRow[]> {
    await this.#readyNow();
    const { page, where = [] } = options;
    const params: unknown[] = [prefix, now];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    let sql = `SELECT ${COLUMNS} FROM ${this.#t} WHERE ${UNDER} AND ${LIVE("$2")}`;
    if (where.length > 0) {
      // the row's value parsed once, in the database: only the rows of the page come back
      const tests = where.map((c) => conditionSql(c, p(c.field), p));
      sql = `SELECT ${COLUMNS} FROM (SELECT ${COLUMNS}, value::jsonb AS doc FROM ${this.#t}
        WHERE ${UNDER} AND ${LIVE("$2")} OFFSET 0) AS s WHERE ${tests.join(" AND ")}`;
    }
    if (page.after) {
      const [u, ns, key] = [p(page.after.updatedAt), p(page.after.namespace), p(page.after.key)];
      sql += ` AND (updated_at < ${u} OR (updated_at = ${u} AND (ns > ${ns} OR (ns = ${ns} AND key > ${key}))))`;
    }
    sql += ` ORDER BY updated_at DESC, ns, key LIMIT ${p(page.limit)} OFFSET ${p(page.offset)}`;
    try {
      return (await this.#db.query<Row>(sql, params)).map(fromRow);
    } catch (error) {
      // 22P05: a value stored before NUL characters were refused, which jsonb cannot read
      if ((error as { code?: unknown }).code !== "22P05") throw error;
      throw new TrellisError(
        "CONFLICT",
        `An item under this namespace prefix was stored with a NUL character (\\u0000), which Postgres cannot filter: put that item again without it (or delete it), or search without a filter.`,
      );
    }
  }

  async refresh(rows: ReadonlyArray<{ namespace: string; key: string }>, now: number): Promise<void> {
    await this.#readyNow();
    await this.#db.query(
      `UPDATE ${this.#t} SET expires_at = $3 + round(ttl_minutes * 60000)::bigint
       WHERE (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND ttl_minutes IS NOT NULL AND ${LIVE("$3")}`,
      [rows.map((r) => r.namespace), rows.map((r) => r.key), now],
    );
  }

  async namespaces(now: number, prefix: string): Promise<string[]> {
    await this.#readyNow();
    const rows = await this.#db.query<{ ns: string }>(
      `SELECT DISTINCT ns FROM ${this.#t} WHERE ${UNDER} AND ${LIVE("$2")}`,
      [prefix, now],
    );
    return rows.map((r) => r.ns);
  }

  async sweep(now: number): Promise<number> {
    await this.#readyNow();
    const rows = await this.#db.query<{ n: string }>(
      `WITH gone AS (DELETE FROM ${this.#t} WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING 1)
       SELECT count(*) AS n FROM gone`,
      [now],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async close(): Promise<void> {
    if (this.#owns) await this.pool.end();
  }
}

/**
 * Options of {@link PostgresStore}. Give a `pool` (the saver's `saver.pool`, say), or what to build one from.
 *
 * @example
 * new PostgresStore({ connectionString: process.env.DATABASE_URL, schema: "trellis" });
 */
export interface PostgresStoreOptions extends ItemStoreOptions {
  /** A pool to use; the store will not end it. */
  pool?: pg.Pool;
  connectionString?: string;
  poolConfig?: pg.PoolConfig;
  /** Schema holding the `store_items` table; created if needed. Default `trellis`. */
  schema?: string;
  /** Retries of a statement whose connection broke. Default 3. */
  retries?: number;
}

/**
 * The long-term memory store on PostgreSQL (LangGraph's `BaseStore` semantics), for servers that scale
 * out: items in `<schema>.store_items`, numbered migrations of its own, created on first use (or call
 * {@link PostgresStore.setup}).
 *
 * @example
 * import { PostgresSaver, PostgresStore } from "@trellis/checkpoint-postgres";
 *
 * const saver = new PostgresSaver({ connectionString: process.env.DATABASE_URL });
 * const store = new PostgresStore({ pool: saver.pool });
 * const graph = builder.compile({ checkpointer: saver, store });
 */
export class PostgresStore extends ItemStore {
  constructor(options: PostgresStoreOptions = {}) {
    super(new PostgresStoreBackend(options), options);
  }

  /** The pool, for health checks and tests. */
  get pool(): pg.Pool {
    return (this.backend as PostgresStoreBackend).pool;
  }

  /**
   * Creates or migrates the store's table (once; later calls return the same promise). Every method
   * calls it first, so calling it yourself only fails fast at startup.
   *
   * @example
   * await store.setup(); // 1
   */
  setup(): Promise<number> {
    return (this.backend as PostgresStoreBackend).setup();
  }
}

async function migrateStore(pool: pg.Pool, schema: string): Promise<number> {
  const s = quoteSchema(schema);
  const latest = POSTGRES_STORE_MIGRATIONS.length;
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`trellis-store-migrations:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.trellis_store_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      `SELECT MAX(version) AS v FROM ${s}.trellis_store_migrations`,
    );
    const current = rows[0]?.v ?? 0;
    if (current > latest) {
      throw new TrellisError(
        "MIGRATION",
        `Schema ${schema} is at store schema version ${current}, newer than this @trellis/checkpoint-postgres knows (${latest}). Upgrade the package.`,
        { details: { schema, current, known: latest } },
      );
    }
    for (const m of POSTGRES_STORE_MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql(s));
      await client.query(`INSERT INTO ${s}.trellis_store_migrations (version, name) VALUES ($1, $2)`, [
        m.version,
        m.name,
      ]);
    }
    await client.query("COMMIT");
    return latest;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
