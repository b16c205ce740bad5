import {
  ItemStore,
  type ItemStoreOptions,
  type StoreBackend,
  type StoreCondition,
  type StoreRow,
  type StoreScanOptions,
  TrellisError,
} from "@trellis/checkpoint";
import BetterSqlite3, { type Database, type Statement } from "better-sqlite3";

/**
 * The store's tables, as numbered migrations, recorded apart from the saver's (`trellis_store_migrations`)
 * so a store may share the saver's file or have one of its own. Never edit a shipped migration.
 * @internal
 */
export const SQLITE_STORE_MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: "store items",
    sql: `
      CREATE TABLE store_items (
        ns          TEXT NOT NULL,
        key         TEXT NOT NULL,
        value       TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        ttl_minutes REAL,
        expires_at  INTEGER,
        vectors     TEXT,
        PRIMARY KEY (ns, key)
      );
      CREATE INDEX store_items_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL;`,
  },
  {
    version: 2,
    name: "index items by update time for the newest-first page",
    sql: "CREATE INDEX store_items_updated ON store_items (updated_at DESC, ns, key);",
  },
];

/** Brings the store's tables to the latest version; returns it. @internal */
export function migrateSqliteStore(db: Database, now: number): number {
  const latest = SQLITE_STORE_MIGRATIONS.length;
  const run = db.transaction(() => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS trellis_store_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const row = db.prepare("SELECT MAX(version) AS v FROM trellis_store_migrations").get() as { v: number | null };
    const current = row.v ?? 0;
    if (current > latest) {
      throw new TrellisError(
        "MIGRATION",
        `This SQLite file is at store schema version ${current}, newer than this @trellis/checkpoint-sqlite knows (${latest}). Upgrade the package.`,
        { details: { current, known: latest } },
      );
    }
    for (const m of SQLITE_STORE_MIGRATIONS) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.prepare("INSERT INTO trellis_store_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        now,
      );
    }
    return latest;
  });
  return run.immediate();
}

const LIVE = "(expires_at IS NULL OR expires_at > @now)";
const UNDER = "(@prefix = '' OR ns = @prefix OR (ns >= @prefix || '.' AND ns < @prefix || '/'))";
const COLUMNS = "ns, key, value, created_at, updated_at, ttl_minutes, expires_at, vectors";

const SQL = {
  read: `SELECT ${COLUMNS} FROM store_items WHERE ns = @ns AND key = @key AND ${LIVE}`,
  write: `INSERT INTO store_items (${COLUMNS})
    VALUES (@ns, @key, @value, @created_at, @updated_at, @ttl_minutes, @expires_at, @vectors)
    ON CONFLICT (ns, key) DO UPDATE SET
      created_at = CASE WHEN store_items.expires_at IS NOT NULL AND store_items.expires_at <= excluded.updated_at
                        THEN excluded.created_at ELSE store_items.created_at END,
      value = excluded.value, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes,
      expires_at = excluded.expires_at, vectors = excluded.vectors`,
  remove: "DELETE FROM store_items WHERE ns = @ns AND key = @key",
  scan: `SELECT ${COLUMNS} FROM store_items WHERE ${UNDER} AND ${LIVE}`,
  after:
    " AND (updated_at < @after_u OR (updated_at = @after_u AND (ns > @after_ns OR (ns = @after_ns AND key > @after_key))))",
  order: " ORDER BY updated_at DESC, ns, key LIMIT @limit OFFSET @offset",
  refresh: `UPDATE store_items SET expires_at = @now + CAST(ROUND(ttl_minutes * 60000) AS INTEGER)
    WHERE ns = @ns AND key = @key AND ttl_minutes IS NOT NULL AND ${LIVE}`,
  namespaces: `SELECT DISTINCT ns FROM store_items WHERE ${UNDER} AND ${LIVE}`,
  sweep: "DELETE FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= @now",
} as const;

/**
 * One filter condition as SQL over the `value` column, exactly as the store's filter means it: the
 * JSON type is checked first (`json_extract` alone cannot tell `true` from `1`, or `null` from missing).
 */
function conditionSql(c: StoreCondition, i: number): string {
  const type = `json_type(value, @path${i})`;
  const at = `json_extract(value, @path${i})`;
  const typed =
    c.value === null
      ? `${type} = 'null'`
      : typeof c.value === "boolean"
        ? `${type} = '${c.value}'`
        : typeof c.value === "number"
          ? `${type} IN ('integer', 'real')`
          : `${type} = 'text'`;
  const cmp = { eq: "=", ne: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" }[c.op];
  const test = c.value === null || typeof c.value === "boolean" ? typed : `(${typed} AND ${at} ${cmp} @value${i})`;
  return c.op === "ne" ? `NOT IFNULL(${test}, 0)` : `IFNULL(${test}, 0)`;
}

interface Row {
  ns: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
  ttl_minutes: number | null;
  expires_at: number | null;
  vectors: string | null;
}

function fromRow(r: Row): StoreRow {
  return {
    namespace: r.ns,
    key: r.key,
    value: JSON.parse(r.value) as Record<string, unknown>,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ttlMinutes: r.ttl_minutes,
    expiresAt: r.expires_at,
    vectors: r.vectors === null ? null : (JSON.parse(r.vectors) as number[][]),
  };
}

class SqliteStoreBackend implements StoreBackend {
  readonly #db: Database;
  readonly #owns: boolean;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Database, owns: boolean) {
    this.#db = db;
    this.#owns = owns;
  }

  #stmt(sql: string): Statement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  async read(ns: string, key: string, now: number): Promise<StoreRow | undefined> {
    const row = this.#stmt(SQL.read).get({ ns, key, now }) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  async write(row: StoreRow): Promise<void> {
    this.#stmt(SQL.write).run({
      ns: row.namespace,
      key: row.key,
      value: JSON.stringify(row.value),
      created_at: row.createdAt,
      updated_at: row.updatedAt,
      ttl_minutes: row.ttlMinutes,
      expires_at: row.expiresAt,
      vectors: row.vectors === null ? null : JSON.stringify(row.vectors),
    });
  }

  async remove(ns: string, key: string): Promise<void> {
    this.#stmt(SQL.remove).run({ ns, key });
  }

  async scan(prefix: string, now: number, options: StoreScanOptions): Promise<StoreRow[]> {
    const { page, where = [] } = options;
    const params: Record<string, unknown> = { prefix, now, limit: page.limit, offset: page.offset };
    let sql: string = SQL.scan;
    where.forEach((c, i) => {
      sql += ` AND ${conditionSql(c, i)}`;
      params[`path${i}`] = `$."${c.field}"`;
      if (c.value !== null && typeof c.value !== "boolean") params[`value${i}`] = c.value;
    });
    if (page.after) {
      sql += SQL.after;
      params.after_u = page.after.updatedAt;
      params.after_ns = page.after.namespace;
      params.after_key = page.after.key;
    }
    sql += SQL.order;
    // a filter's shape is the caller's: its statements are not kept, so filters cannot fill the cache
    const statement = where.length === 0 ? this.#stmt(sql) : this.#db.prepare(sql);
    return (statement.all(params) as Row[]).map(fromRow);
  }

  async refresh(rows: ReadonlyArray<{ namespace: string; key: string }>, now: number): Promise<void> {
    const refresh = this.#stmt(SQL.refresh);
    this.#db.transaction(() => {
      for (const r of rows) refresh.run({ ns: r.namespace, key: r.key, now });
    })();
  }

  async namespaces(now: number, prefix: string): Promise<string[]> {
    return (this.#stmt(SQL.namespaces).all({ now, prefix }) as Array<{ ns: string }>).map((r) => r.ns);
  }

  async sweep(now: number): Promise<number> {
    return this.#stmt(SQL.sweep).run({ now }).changes;
  }

  async close(): Promise<void> {
    if (this.#owns && this.#db.open) this.#db.close();
  }
}

/**
 * Options of {@link SqliteStore}.
 *
 * @example
 * new SqliteStore({ filename: "./trellis.db", ttl: { defaultTtl: 60 * 24 * 30, sweepIntervalMinutes: 60 } });
 */
export interface SqliteStoreOptions extends ItemStoreOptions {
  /** Path of the database file, or `":memory:"`. Ignored when `database` is given. */
  filename?: string;
  /** An open better-sqlite3 database (the saver's `saver.database`, say); the store will not close it. */
  database?: Database;
}

/**
 * The long-term memory store on SQLite (LangGraph's `BaseStore` semantics): items in the
 * `store_items` table, in the saver's file or a file of its own, with numbered migrations of its own.
 *
 * @example
 * import { SqliteSaver, SqliteStore } from "@trellis/checkpoint-sqlite";
 *
 * const saver = new SqliteSaver({ filename: "./trellis.db" });
 * const store = new SqliteStore({ database: saver.database });
 * const graph = builder.compile({ checkpointer: saver, store });
 */
export class SqliteStore extends ItemStore {
  /** The underlying database. */
  readonly database: Database;

  constructor(options: SqliteStoreOptions = {}) {
    const db = options.database ?? openOwn(options.filename);
    migrateSqliteStore(db, Date.now());
    super(new SqliteStoreBackend(db, options.database === undefined), options);
    this.database = db;
  }
}

function openOwn(filename: string | undefined): Database {
  if (filename === undefined) {
    throw new TrellisError("INVALID_CONFIG", 'SqliteStore needs a `filename` (or ":memory:") or a `database`.');
  }
  const db = new BetterSqlite3(filename, { timeout: 5_000 });
  db.pragma("journal_mode = WAL");
  return db;
}
