import type pg from "pg";
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
import { migratePostgres, quotedSchema } from "./postgres-migrate.js";

/** The cron table's migrations, numbered; `S.` is replaced by the quoted schema. Never edit a shipped one. */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE S.server_crons (
        cron_id TEXT PRIMARY KEY,
        assistant_id TEXT NOT NULL,
        thread_id TEXT,
        user_id TEXT,
        schedule TEXT NOT NULL,
        payload JSONB NOT NULL,
        metadata JSONB NOT NULL,
        end_ms BIGINT,
        next_run_ms BIGINT,
        on_run_completed TEXT,
        enabled BOOLEAN NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX server_crons_due ON S.server_crons (next_run_ms) WHERE enabled;
      CREATE INDEX server_crons_thread ON S.server_crons (thread_id);
    `,
  },
  { version: 2, sql: "ALTER TABLE S.server_crons ADD COLUMN timezone TEXT;" },
  { version: 3, sql: "ALTER TABLE S.server_crons ADD COLUMN last_tick_ms BIGINT;" },
];

/** Serializes the cron migrations across processes starting at once. */
const CRON_MIGRATION_LOCK = 74_120_021;

type Row = Record<string, unknown>;

function where(filter: CronFilter, first = 1): { sql: string; args: unknown[] } {
  const conditions = filterColumns(filter);
  const clauses = conditions.map(([c], i) => `${c} = $${first + i}`);
  const args = conditions.map(([, v]) => v);
  if (filter.metadata && Object.keys(filter.metadata).length) {
    args.push(JSON.stringify(filter.metadata));
    clauses.push(`metadata @> $${first + args.length - 1}::jsonb`);
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", args };
}

/**
 * The scale-out {@link CronStore}: a `server_crons` table in the server's Postgres schema, shared by
 * every process. A tick is claimed by one `UPDATE … WHERE next_run_ms = $tick` (row-locked and
 * re-checked by Postgres), so of several schedulers racing for a tick exactly one wins.
 *
 * @example
 * const store = new PostgresCronStore({ pool: saver.pool, schema: "trellis" });
 * await store.setup();
 */
export class PostgresCronStore implements CronStore {
  readonly #pool: pg.Pool;
  readonly #s: string;
  #ready: Promise<void> | undefined;

  constructor(options: { pool: pg.Pool; schema?: string | undefined }) {
    this.#pool = options.pool;
    this.#s = quotedSchema(options.schema ?? "trellis");
  }

  /** Creates or migrates the table (once; every method waits for it). */
  setup(): Promise<void> {
    this.#ready ??= (async () => {
      const c = await this.#pool.connect();
      try {
        await c.query("BEGIN");
        await migratePostgres(c, this.#s, "server_cron_migrations", CRON_MIGRATION_LOCK, MIGRATIONS);
        await c.query("COMMIT");
      } catch (error) {
        await c.query("ROLLBACK").catch(() => undefined);
        this.#ready = undefined;
        throw error;
      } finally {
        c.release();
      }
    })();
    return this.#ready;
  }

  async #q(sql: string, args: unknown[] = []): Promise<pg.QueryResult<Row>> {
    await this.setup();
    return this.#pool.query<Row>(sql, args);
  }

  async create(cron: CronRecord): Promise<void> {
    await this.#q(
      `INSERT INTO ${this.#s}.server_crons (cron_id, assistant_id, thread_id, user_id, schedule, timezone, payload,
         metadata, end_ms, next_run_ms, on_run_completed, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
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
        cron.enabled,
        cron.createdAt,
        cron.updatedAt,
      ],
    );
  }

  async get(cronId: string): Promise<CronRecord | undefined> {
    const { rows } = await this.#q(`SELECT * FROM ${this.#s}.server_crons WHERE cron_id = $1`, [cronId]);
    return rows[0] ? cronOf(rows[0]) : undefined;
  }

  async update(cronId: string, changes: CronChanges): Promise<CronRecord | undefined> {
    const cols = changedColumns(changes);
    const { rows } = await this.#q(
      `UPDATE ${this.#s}.server_crons SET ${cols.map(([c], i) => `${c} = $${i + 1}`).join(", ")}
       WHERE cron_id = $${cols.length + 1} RETURNING *`,
      [...cols.map(([, v]) => v), cronId],
    );
    return rows[0] ? cronOf(rows[0]) : undefined;
  }

  async delete(cronId: string): Promise<boolean> {
    const { rowCount } = await this.#q(`DELETE FROM ${this.#s}.server_crons WHERE cron_id = $1`, [cronId]);
    return (rowCount ?? 0) > 0;
  }

  async search(query: CronQuery): Promise<CronRecord[]> {
    const w = where(query);
    const column = CRON_SORT_COLUMNS[query.sortBy];
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    const n = w.args.length;
    const { rows } = await this.#q(
      `SELECT * FROM ${this.#s}.server_crons ${w.sql} ORDER BY ${column} ${order} NULLS LAST, cron_id ${order}
       LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...w.args, query.limit, query.offset],
    );
    return rows.map(cronOf);
  }

  async count(filter: CronFilter): Promise<number> {
    const w = where(filter);
    const { rows } = await this.#q(`SELECT COUNT(*) AS n FROM ${this.#s}.server_crons ${w.sql}`, w.args);
    return Number(rows[0]?.n ?? 0);
  }

  async due(nowMs: number, limit: number): Promise<CronRecord[]> {
    const { rows } = await this.#q(
      `SELECT * FROM (
         SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY next_run_ms, cron_id) AS turn
         FROM ${this.#s}.server_crons WHERE enabled AND next_run_ms IS NOT NULL AND next_run_ms <= $1) d
       ORDER BY turn, next_run_ms, cron_id LIMIT $2`,
      [nowMs, limit],
    );
    return rows.map(cronOf);
  }

  async claim(cronId: string, tickMs: number, nextMs: number | null): Promise<boolean> {
    // the row is locked by the first claimer; a second one re-reads it after the commit and finds the
    // next run moved, so it matches nothing. `old` is the last tick taken before this one.
    const { rows } = await this.#q(
      `WITH old AS (
         SELECT last_tick_ms FROM ${this.#s}.server_crons
         WHERE cron_id = $2 AND enabled AND next_run_ms = $3 FOR UPDATE
       )
       UPDATE ${this.#s}.server_crons c
       SET next_run_ms = $1, last_tick_ms = GREATEST(COALESCE(c.last_tick_ms, $3), $3)
       FROM old WHERE c.cron_id = $2 AND c.enabled AND c.next_run_ms = $3
       RETURNING old.last_tick_ms AS old`,
      [nextMs, cronId, tickMs],
    );
    if (rows.length !== 1) return false;
    const old = rows[0]?.old;
    return old === null || old === undefined || Number(old) < tickMs;
  }
}
