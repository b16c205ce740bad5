import pg from "pg";
import type { SqlDatabase, SqlValue } from "./sql-database.js";

/** Options of {@link openPostgresDatabase}. */
export interface PostgresDatabaseOptions {
  /** `postgres://user@host:port/db`. */
  url: string;
  /** Schema the app's tables live in (created when missing). Default `market_assistant`. */
  schema?: string;
  /** Most connections in the pool. Default 4. */
  maxConnections?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Connects to PostgreSQL as a {@link SqlDatabase}: a pool whose connections use `schema` as their
 * search path, so the same SQL runs on SQLite and PostgreSQL. Creates the schema when missing.
 *
 * @example
 * const db = await openPostgresDatabase({ url: "postgres://postgres@127.0.0.1:5432/test" });
 * await installCompanyGraph(db, SAMPLE_DATASET);
 */
export async function openPostgresDatabase(options: PostgresDatabaseOptions): Promise<SqlDatabase> {
  const schema = options.schema ?? "market_assistant";
  if (!IDENTIFIER.test(schema)) {
    throw new Error(`Postgres schema "${schema}" must be a lower-case SQL identifier (letters, digits, underscore).`);
  }
  const setup = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: 5_000 });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Another process created it at the same moment: IF NOT EXISTS is not atomic in PostgreSQL.
    if ((error as { code?: string }).code !== "23505") throw error;
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 4,
    connectionTimeoutMillis: 5_000,
    options: `-c search_path=${schema}`,
  });
  pool.on("error", () => {
    // an idle connection died; the pool replaces it on the next query, which reports its own error
  });
  return new PostgresDatabase(pool);
}

/** `?` placeholders to `$1, $2…` (the app's SQL has no `?` inside string literals). @internal */
export function toNumberedPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

class PostgresDatabase implements SqlDatabase {
  readonly dialect = "postgres";
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async query<T extends object>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const result = await this.#pool.query(toNumberedPlaceholders(sql), [...params]);
    return result.rows as T[];
  }

  async transaction<T>(fn: (tx: SqlDatabase) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const tx: SqlDatabase = {
      dialect: "postgres",
      query: async <R extends object>(sql: string, params: readonly SqlValue[] = []) =>
        (await client.query(toNumberedPlaceholders(sql), [...params])).rows as R[],
      transaction: (inner) => inner(tx),
      close: async () => {},
    };
    try {
      await client.query("BEGIN");
      const result = await fn(tx);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
