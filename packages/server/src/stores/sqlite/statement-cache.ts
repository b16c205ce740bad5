import type { Database, Statement } from "better-sqlite3";

/**
 * The prepared statements of one SQLite connection, each prepared on first use and then kept. For fixed
 * SQL only: a statement built from a request's filters would grow it without bound (prepare those once).
 *
 * @example
 * const statements = new StatementCache(db);
 * statements.get("SELECT * FROM server_assistants WHERE assistant_id = ?").get(assistantId);
 * @internal
 */
export class StatementCache {
  readonly #db: Database;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Database) {
    this.#db = db;
  }

  /** The statement of `sql`, prepared the first time it is asked for. */
  get(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Forgets every statement (the connection is closing). */
  clear(): void {
    this.#statements.clear();
  }
}
