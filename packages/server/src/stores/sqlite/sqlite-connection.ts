/**
 * The SQLite run store's connection: its statement cache, its two kinds of commit (quick ones with
 * `synchronous=NORMAL`, made durable by one `synchronous=FULL` commit before an answer), the store's
 * clock, and the SQL dialect the shared run store logic speaks to it.
 */
import { performance } from "node:perf_hooks";
import type { Database, Statement, Transaction } from "better-sqlite3";
import { json } from "../run-store.js";
import type { Row, SqlDialect, SqlExec } from "../sql/sql-dialect.js";
import { migrateServerTables } from "./sqlite-run-migrations.js";
import { StatementCache } from "./statement-cache.js";

/**
 * The store's clock (ms since the epoch): one process serves a SQLite file, so its own monotonic clock,
 * anchored at its start, orders a request's arrival and a change of a thread's state. `at`: a reading
 * of `performance.now()` taken already, to put on this clock.
 */
export const storeNow = (at: number = performance.now()): number => performance.timeOrigin + at;

/**
 * SQLite's spelling of what the shared store logic writes: `?` arguments, `IS` for a nullable column,
 * an `IN` list, a metadata filter through `json_extract` (one clause per key), `instr` and 0/1 booleans.
 *
 * @example
 * const tables = new SqlRunTables(sqliteDialect, connection);
 */
export const sqliteDialect: SqlDialect = {
  table: (name) => name,
  param: () => "?",
  sameAs: (column, p) => `${column} IS ${p}`,
  oneOf: (column, values, args) => `${column} IN (${values.map((v) => args.p(v)).join(", ") || "NULL"})`,
  metadataMatches: (metadata, args) =>
    Object.entries(metadata).map(
      ([key, value]) =>
        `json_extract(metadata, ${args.p(`$."${key.replace(/"/g, '""')}"`)}) IS json_extract(${args.p(json(value))}, '$')`,
    ),
  containsText: (column, p) => `instr(lower(${column}), lower(${p})) > 0`,
  isTrue: (column) => `${column} = 1`,
};

/**
 * How many commits a {@link SqliteRunStore} made each way, since it opened: what the durability tests
 * and the bench's sync count read.
 *
 * @example
 * const before = store.commitCounts.synced;
 * await app.request("/threads", { method: "POST", body: "{}" });
 * console.log(store.commitCounts.synced - before); // 1: the answer waited for one durable commit
 */
export interface SqliteCommitCounts {
  /** Bookkeeping commits made with `synchronous=NORMAL` (they survive a process crash, not a power cut). */
  quick: number;
  /** Durable commits {@link SqliteRunStore.syncCommits} made to sync the quick ones before an answer. */
  synced: number;
}

/**
 * The server's tables in one SQLite file, migrated on open: cached statements, quick commits and
 * transactions, and the durable commit that syncs them.
 *
 * @example
 * const c = new SqliteConnection(saver.database);
 * c.tx(() => c.stmt("UPDATE server_runs SET cancel = ? WHERE run_id = ?").run("interrupt", runId));
 * await c.syncCommits();
 * @internal
 */
export class SqliteConnection implements SqlExec {
  readonly db: Database;
  readonly #stmts: StatementCache;
  /** The connection's `synchronous` level when the store opened (2 FULL, 3 EXTRA), put back after each quick commit. */
  readonly #level: number;
  /** Whether a quick commit was made since the last durable one. */
  #unsynced = false;
  /** Commits made each way since the store opened. */
  readonly commitCounts: SqliteCommitCounts = { quick: 0, synced: 0 };
  /** better-sqlite3's transaction wrapper, made once: making one per call showed in a server profile. */
  readonly #tx: Transaction<(fn: () => unknown) => unknown>;

  constructor(db: Database) {
    this.db = db;
    this.#stmts = new StatementCache(db);
    this.#tx = db.transaction((fn: () => unknown) => fn());
    migrateServerTables(db);
    this.#level = Number(db.pragma("synchronous", { simple: true }));
  }

  /**
   * Runs `fn` (one statement, or a transaction) committing with `synchronous=NORMAL`. `exec`, never a
   * prepared statement: SQLite applies a `synchronous` pragma when the pragma's statement compiles.
   */
  quick<T>(fn: () => T): T {
    this.commitCounts.quick++;
    if (this.#level < 2) return fn();
    this.db.exec("PRAGMA synchronous = NORMAL");
    try {
      return fn();
    } finally {
      this.db.exec(`PRAGMA synchronous = ${this.#level}`);
      this.#unsynced = true;
    }
  }

  /** Whether a quick commit was made since the last durable commit: what {@link syncCommits} would sync. */
  get unsynced(): boolean {
    return this.#unsynced;
  }

  /**
   * Makes the store's quick commits durable through a power cut: when any was made since the last
   * durable commit, one `synchronous=FULL` commit of a one-row table, whose sync of the write-ahead log
   * carries every earlier commit of the file with it. Nothing to do otherwise.
   */
  async syncCommits(): Promise<void> {
    if (!this.#unsynced) return;
    this.#unsynced = false;
    try {
      this.stmt("UPDATE server_syncs SET n = n + 1 WHERE id = 1").run();
      this.commitCounts.synced++;
    } catch (error) {
      this.#unsynced = true;
      throw error;
    }
  }

  /** The cached statement of `sql`. */
  stmt(sql: string): Statement {
    return this.#stmts.get(sql);
  }

  /** Runs `fn` in one immediate transaction, committed quick. */
  tx<T>(fn: () => T): T {
    return this.quick(() => this.#tx.immediate(fn) as T);
  }

  async all(sql: string, args: readonly unknown[], once = false): Promise<Row[]> {
    return (once ? this.db.prepare(sql) : this.stmt(sql)).all(...args) as Row[];
  }

  async run(sql: string, args: readonly unknown[], once = false): Promise<void> {
    const statement = once ? this.db.prepare(sql) : this.stmt(sql);
    this.quick(() => statement.run(...args));
  }

  async batch(statements: ReadonlyArray<readonly [sql: string, args: readonly unknown[]]>): Promise<void> {
    this.tx(() => {
      for (const [sql, args] of statements) this.stmt(sql).run(...args);
    });
  }

  /** Forgets the cached statements. */
  close(): void {
    this.#stmts.clear();
  }
}

/**
 * Plain statements on a SQLite connection, prepared per call (their SQL is built from each request's
 * filters), committed at the connection's own level: the assistants' and crons' queries.
 *
 * @example
 * const queries = new SqlAssistantQueries(sqliteDialect, sqliteExec(db));
 */
export function sqliteExec(db: Database): SqlExec {
  return {
    all: async (sql, args) => db.prepare(sql).all(...args) as Row[],
    run: async (sql, args) => {
      db.prepare(sql).run(...args);
    },
    batch: async (statements) => {
      db.transaction(() => {
        for (const [sql, args] of statements) db.prepare(sql).run(...args);
      }).immediate();
    },
  };
}
