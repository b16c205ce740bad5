import BetterSqlite3, { type Database } from "better-sqlite3";

/**
 * What a ledger entry records:
 * - `start` / `end`: a node began / returned (token names the node and its round);
 * - `effect`: the side effect inside a durable `ctx.step` really ran;
 * - `saved`: a finished task's result was stored as a pending write (the saver acknowledged it);
 * - `applied`: a value became part of a stored checkpoint (the saver acknowledged the put);
 * - `point`: the worker reached a named kill point;
 * - anything else a scenario wants to count.
 */
export type LedgerKind = "start" | "end" | "effect" | "saved" | "applied" | "point" | (string & {});

/** One row of the ledger. */
export interface LedgerEntry {
  seq: number;
  pid: number;
  kind: LedgerKind;
  token: string;
  detail: string | null;
}

/**
 * An append-only table of everything the processes of a scenario did, in one SQLite file shared by the
 * test and its worker processes (WAL, `synchronous=FULL`, so an entry written before a SIGKILL is
 * kept). `seq` orders entries across processes.
 *
 * @example
 * const ledger = Ledger.open(join(dir, "ledger.db"));
 * ledger.record("start", "w2:1");
 * ledger.count("start", "w2:1"); // 1
 */
export class Ledger {
  readonly #db: Database;
  readonly #insert: BetterSqlite3.Statement;

  private constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare("INSERT INTO ledger (pid, kind, token, detail) VALUES (?, ?, ?, ?)");
  }

  /**
   * Opens (creating if needed) the ledger in `filename`.
   *
   * @example
   * const ledger = Ledger.open("/tmp/scenario/ledger.db");
   */
  static open(filename: string): Ledger {
    const db = new BetterSqlite3(filename, { timeout: 10_000 });
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("busy_timeout = 10000");
    db.exec(`CREATE TABLE IF NOT EXISTS ledger (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      pid INTEGER NOT NULL,
      kind TEXT NOT NULL,
      token TEXT NOT NULL,
      detail TEXT
    )`);
    return new Ledger(db);
  }

  /** Appends one entry for this process. */
  record(kind: LedgerKind, token: string, detail?: string): void {
    this.#insert.run(process.pid, kind, token, detail ?? null);
  }

  /**
   * Appends several entries for this process in one transaction: a process paused between them (a
   * test's SIGSTOP) never holds the ledger's write lock after another process saw the first one.
   *
   * @example
   * ledger.recordAll([["start", "b", "run-1"], ["attempt-start", "b", "run-1:2@1700000000000"]]);
   */
  recordAll(entries: ReadonlyArray<readonly [kind: LedgerKind, token: string, detail?: string]>): void {
    this.#db.transaction(() => {
      for (const [kind, token, detail] of entries) this.record(kind, token, detail);
    })();
  }

  /** Every entry, in order; only those of `kind` when given. */
  entries(kind?: LedgerKind): LedgerEntry[] {
    const rows =
      kind === undefined
        ? this.#db.prepare("SELECT seq, pid, kind, token, detail FROM ledger ORDER BY seq").all()
        : this.#db.prepare("SELECT seq, pid, kind, token, detail FROM ledger WHERE kind = ? ORDER BY seq").all(kind);
    return rows as LedgerEntry[];
  }

  /** How many entries of `kind` there are (for `token` only, when given). */
  count(kind: LedgerKind, token?: string): number {
    const row = (
      token === undefined
        ? this.#db.prepare("SELECT count(*) AS n FROM ledger WHERE kind = ?").get(kind)
        : this.#db.prepare("SELECT count(*) AS n FROM ledger WHERE kind = ? AND token = ?").get(kind, token)
    ) as { n: number };
    return row.n;
  }

  /** Number of entries per token for one kind. */
  tally(kind: LedgerKind): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of this.entries(kind)) out.set(e.token, (out.get(e.token) ?? 0) + 1);
    return out;
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

/**
 * Compares the values a thread holds with the values it should hold: each expected value exactly
 * once, nothing else.
 *
 * @example
 * const audit = auditValues(["a:0", "b:0"], state.values.log);
 * expect(audit).toEqual({ lost: [], duplicated: [], unexpected: [] });
 */
export function auditValues(
  expected: readonly string[],
  actual: readonly string[],
): { lost: string[]; duplicated: string[]; unexpected: string[] } {
  const counts = new Map<string, number>();
  for (const v of actual) counts.set(v, (counts.get(v) ?? 0) + 1);
  const want = new Set(expected);
  return {
    lost: expected.filter((v) => !counts.has(v)),
    duplicated: [...counts].filter(([, n]) => n > 1).map(([v]) => v),
    unexpected: [...counts.keys()].filter((v) => !want.has(v)),
  };
}

/**
 * Durable-step effects that ran again after the step's result was stored (`step-saved` before a later
 * `effect`): a durable step must never repeat then. An effect may repeat only when the process died
 * between the effect and the record of its result — no runtime can tell those apart.
 *
 * @example
 * expect(effectsAfterRecord(ledger.entries())).toEqual([]);
 */
export function effectsAfterRecord(entries: readonly LedgerEntry[]): string[] {
  const recorded = new Set<string>();
  const out = new Set<string>();
  for (const e of entries) {
    if (e.kind === "step-saved") recorded.add(e.token);
    else if (e.kind === "effect" && recorded.has(e.token)) out.add(e.token);
  }
  return [...out];
}

/**
 * Tokens of tasks that started again after their result was durable (a `saved` or `applied` entry
 * came before the `start`): a finished task must never run again.
 *
 * @example
 * expect(rerunsAfterDurable(ledger.entries())).toEqual([]);
 */
export function rerunsAfterDurable(entries: readonly LedgerEntry[]): string[] {
  const durable = new Set<string>();
  const out = new Set<string>();
  for (const e of entries) {
    if (e.kind === "saved" || e.kind === "applied") durable.add(e.token);
    else if (e.kind === "start" && durable.has(e.token)) out.add(e.token);
  }
  return [...out];
}
