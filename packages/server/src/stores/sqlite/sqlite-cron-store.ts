import type { Database } from "better-sqlite3";
import {
  CRON_SORT_COLUMNS,
  type CronChanges,
  type CronFilter,
  type CronQuery,
  type CronRecord,
  type CronStore,
  changedColumns,
  cronOf,
  filterColumns,
} from "../cron-store.js";

/**
 * The cron table's migrations, numbered. Never edit a shipped one: add the next. They are tracked in a
 * table of their own, so they are independent of the run store's.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE server_crons (
        cron_id TEXT PRIMARY KEY,
        assistant_id TEXT NOT NULL,
        thread_id TEXT,
        user_id TEXT,
        schedule TEXT NOT NULL,
        payload TEXT NOT NULL,
        metadata TEXT NOT NULL,
        end_ms INTEGER,
        next_run_ms INTEGER,
        on_run_completed TEXT,
        enabled INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX server_crons_due ON server_crons (next_run_ms) WHERE enabled = 1;
      CREATE INDEX server_crons_thread ON server_crons (thread_id);
    `,
  },
  { version: 2, sql: "ALTER TABLE server_crons ADD COLUMN timezone TEXT;" },
  { version: 3, sql: "ALTER TABLE server_crons ADD COLUMN last_tick_ms INTEGER;" },
];

type Row = Record<string, unknown>;
const sqlValue = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v);

function where(filter: CronFilter): { sql: string; args: unknown[] } {
  const clauses = filterColumns(filter).map(([c, v]) => ({ sql: `${c} = ?`, args: [sqlValue(v)] }));
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    clauses.push({
      sql: "json_extract(metadata, ?) IS json_extract(?, '$')",
      args: [`$."${key.replace(/"/g, '""')}"`, JSON.stringify(value)],
    });
  }
  return {
    sql: clauses.length ? `WHERE ${clauses.map((c) => c.sql).join(" AND ")}` : "",
    args: clauses.flatMap((c) => c.args),
  };
}

/**
 * The embedded {@link CronStore}: a `server_crons` table in the server's SQLite file. A tick is claimed
 * by one `UPDATE … WHERE next_run_ms = ?`, atomic across connections to the file.
 *
 * @example
 * const store = new SqliteCronStore(saver.database);
 * await store.claim(cron.cronId, tick, next); // true for exactly one caller per tick
 */
export class SqliteCronStore implements CronStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#migrate();
  }

  #migrate(): void {
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS trellis_cron_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    this.#db
      .transaction(() => {
        const row = this.#db.prepare("SELECT MAX(version) AS v FROM trellis_cron_migrations").get() as {
          v: number | null;
        };
        for (const m of MIGRATIONS) {
          if (m.version <= (row.v ?? 0)) continue;
          this.#db.exec(m.sql);
          this.#db
            .prepare("INSERT INTO trellis_cron_migrations (version, applied_at) VALUES (?, ?)")
            .run(m.version, new Date().toISOString());
        }
      })
      .immediate();
  }

  async create(cron: CronRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO server_crons (cron_id, assistant_id, thread_id, user_id, schedule, timezone, payload, metadata,
           end_ms, next_run_ms, on_run_completed, enabled, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        cron.cronId,
        cron.assistantId,
        cron.threadId,
        cron.userId,
        cron.schedule,
        cron.timezone,
        JSON.stringify(cron.payload),
        JSON.stringify(cron.metadata),
        cron.endTimeMs,
        cron.nextRunMs,
        cron.onRunCompleted,
        cron.enabled ? 1 : 0,
        cron.createdAt,
        cron.updatedAt,
      );
  }

  async get(cronId: string): Promise<CronRecord | undefined> {
    const row = this.#db.prepare("SELECT * FROM server_crons WHERE cron_id = ?").get(cronId) as Row | undefined;
    return row ? cronOf(row) : undefined;
  }

  async update(cronId: string, changes: CronChanges): Promise<CronRecord | undefined> {
    const cols = changedColumns(changes);
    const info = this.#db
      .prepare(`UPDATE server_crons SET ${cols.map(([c]) => `${c} = ?`).join(", ")} WHERE cron_id = ?`)
      .run(...cols.map(([, v]) => sqlValue(v)), cronId);
    return info.changes ? this.get(cronId) : undefined;
  }

  async delete(cronId: string): Promise<boolean> {
    return this.#db.prepare("DELETE FROM server_crons WHERE cron_id = ?").run(cronId).changes > 0;
  }

  async search(query: CronQuery): Promise<CronRecord[]> {
    const w = where(query);
    const column = CRON_SORT_COLUMNS[query.sortBy];
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = this.#db
      .prepare(`SELECT * FROM server_crons ${w.sql} ORDER BY ${column} ${order}, cron_id ${order} LIMIT ? OFFSET ?`)
      .all(...w.args, query.limit, query.offset) as Row[];
    return rows.map(cronOf);
  }

  async count(filter: CronFilter): Promise<number> {
    const w = where(filter);
    const row = this.#db.prepare(`SELECT COUNT(*) AS n FROM server_crons ${w.sql}`).get(...w.args) as { n: number };
    return row.n;
  }

  async due(nowMs: number, limit: number): Promise<CronRecord[]> {
    const rows = this.#db
      .prepare(
        `SELECT * FROM (
           SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY next_run_ms, cron_id) AS turn FROM server_crons
           WHERE enabled = 1 AND next_run_ms IS NOT NULL AND next_run_ms <= ?)
         ORDER BY turn, next_run_ms, cron_id LIMIT ?`,
      )
      .all(nowMs, limit) as Row[];
    return rows.map(cronOf);
  }

  async claim(cronId: string, tickMs: number, nextMs: number | null): Promise<boolean> {
    // IMMEDIATE: the write lock first, so the read and the move are one step for every connection
    return this.#db
      .transaction(() => {
        const row = this.#db
          .prepare("SELECT last_tick_ms FROM server_crons WHERE cron_id = ? AND enabled = 1 AND next_run_ms = ?")
          .get(cronId, tickMs) as { last_tick_ms: number | null } | undefined;
        if (!row) return false;
        this.#db
          .prepare(
            "UPDATE server_crons SET next_run_ms = ?, last_tick_ms = MAX(COALESCE(last_tick_ms, ?), ?) WHERE cron_id = ?",
          )
          .run(nextMs, tickMs, tickMs, cronId);
        return row.last_tick_ms === null || row.last_tick_ms < tickMs;
      })
      .immediate();
  }
}
