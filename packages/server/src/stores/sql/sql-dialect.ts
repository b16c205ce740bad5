/**
 * What the SQL run stores (SQLite, Postgres) differ in, for the logic they share: how a query names a
 * table and an argument, compares a nullable column, matches a list and a metadata filter, and how a
 * statement reaches the database. The fencing transactions stay hand-written per dialect.
 */

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** The server's tables the shared logic reads and writes. */
export type ServerTable =
  | "server_threads"
  | "server_runs"
  | "server_run_events"
  | "server_assistants"
  | "server_assistant_versions";

/**
 * How one SQL dialect spells what differs.
 *
 * @example
 * const sqlite: SqlDialect = {
 *   table: (name) => name,
 *   param: () => "?",
 *   sameAs: (column, p) => `${column} IS ${p}`,
 *   oneOf: (column, values, args) => `${column} IN (${values.map((v) => args.p(v)).join(", ")})`,
 *   metadataMatches: () => [],
 *   containsText: (column, p) => `instr(lower(${column}), lower(${p})) > 0`,
 *   isTrue: (column) => `${column} = 1`,
 * };
 */
export interface SqlDialect {
  /** The table's name as a query writes it (schema-qualified in Postgres). */
  table(name: ServerTable): string;
  /** The placeholder of the `n`-th argument (1-based): `?` or `$n`. */
  param(n: number): string;
  /** `column` equals the argument `p`, a null equal to a null. */
  sameAs(column: string, p: string): string;
  /** `column` is one of `values` (added to `args`). */
  oneOf(column: string, values: readonly string[], args: SqlArgs): string;
  /** Clauses matching every key of `metadata` against the JSON column `metadata` (values added to `args`). */
  metadataMatches(metadata: Record<string, unknown>, args: SqlArgs): string[];
  /** The text `column` contains the argument `p`, ignoring case. */
  containsText(column: string, p: string): string;
  /** The boolean `column` is true. */
  isTrue(column: string): string;
}

/**
 * A statement's arguments, collected while its SQL is written: `p(value)` adds one and returns its
 * placeholder, so the text and the values never drift apart. Write the SQL left to right: SQLite's
 * `?` are bound by position, so an argument added before one that appears earlier binds wrongly.
 *
 * @example
 * const args = new SqlArgs(dialect);
 * const sql = `SELECT * FROM server_runs WHERE run_id = ${args.p(runId)}`;
 * await exec.all(sql, args.values);
 */
export class SqlArgs {
  readonly values: unknown[] = [];
  readonly #dialect: SqlDialect;

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  /** Adds `value` and returns its placeholder. */
  p(value: unknown): string {
    this.values.push(value);
    return this.#dialect.param(this.values.length);
  }
}

/**
 * How statements reach one database. `once` marks SQL whose text varies with the request (a filter of
 * any keys), not worth a cached statement.
 *
 * @example
 * const rows = await exec.all("SELECT * FROM server_runs WHERE run_id = ?", [runId]);
 */
export interface SqlExec {
  /** Reads rows. */
  all(sql: string, args: readonly unknown[], once?: boolean): Promise<Row[]>;
  /** One write, committed on its own. */
  run(sql: string, args: readonly unknown[], once?: boolean): Promise<void>;
  /** Writes in one transaction, in order. */
  batch(statements: ReadonlyArray<readonly [sql: string, args: readonly unknown[]]>): Promise<void>;
}
