import Database from "better-sqlite3";
import type { SqlDatabase, SqlValue } from "./sql-database.js";

/**
 * Opens (or creates) a SQLite file — or `":memory:"` — as a {@link SqlDatabase}. WAL mode for files.
 *
 * @example
 * const db = openSqliteDatabase(".trellis/market-assistant.sqlite");
 * await db.query("SELECT 1 AS one"); // [{ one: 1 }]
 */
export function openSqliteDatabase(path: string): SqlDatabase {
  const db = new Database(path);
  if (path !== ":memory:") db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000"); // another process (the server, the CLI) may hold the write lock
  return new SqliteDatabase(db);
}

class SqliteDatabase implements SqlDatabase {
  readonly dialect = "sqlite";
  readonly #db: Database.Database;
  #txDepth = 0;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  async query<T extends object>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    const statement = this.#db.prepare(sql);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }

  async transaction<T>(fn: (tx: SqlDatabase) => Promise<T>): Promise<T> {
    if (this.#txDepth > 0) return fn(this);
    this.#db.exec("BEGIN IMMEDIATE");
    this.#txDepth++;
    try {
      const result = await fn(this);
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    } finally {
      this.#txDepth--;
    }
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
