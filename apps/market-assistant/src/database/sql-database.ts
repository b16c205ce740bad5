/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;

/**
 * The little the company graph needs from a relational database: run a statement with `?`
 * placeholders and get rows back, run several in a transaction, close. Implemented on SQLite
 * ({@link openSqliteDatabase}) and PostgreSQL ({@link openPostgresDatabase}); the SQL the app writes is
 * the common subset of both (`WITH RECURSIVE`, `CAST(... AS INTEGER)`, `||`).
 *
 * @example
 * const rows = await db.query<{ name: string }>("SELECT name FROM companies WHERE id = ?", ["JKH"]);
 */
export interface SqlDatabase {
  readonly dialect: "sqlite" | "postgres";
  /** Runs one statement; resolves its rows (none for statements that return nothing). */
  query<T extends object = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Runs `fn` in a transaction on one connection: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: SqlDatabase) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
