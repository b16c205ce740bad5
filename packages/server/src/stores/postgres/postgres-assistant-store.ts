import pg from "pg";
import {
  type AssistantFilter,
  type AssistantPatch,
  type AssistantQuery,
  type AssistantRecord,
  type AssistantStore,
  type AssistantVersionRecord,
  asideId,
  patched,
  versionOf,
} from "../assistant-store.js";
import {
  assistantFromRow,
  assistantRowValues,
  assistantTaken,
  SqlAssistantQueries,
  versionFromRow,
  versionRowValues,
} from "../sql/assistant-sql.js";
import type { Row, SqlExec } from "../sql/sql-dialect.js";
import { postgresDialect } from "./postgres-connection.js";
import { migratePostgres, quotedSchema } from "./postgres-migrate.js";

/**
 * Options of {@link PostgresAssistantStore}.
 *
 * @example
 * const options: PostgresAssistantStoreOptions = { pool: saver.pool, schema: "trellis" };
 * const assistants = new PostgresAssistantStore(options);
 */
export interface PostgresAssistantStoreOptions {
  /** A pool to use (e.g. the PostgresSaver's); the store will not end it. */
  pool?: pg.Pool;
  connectionString?: string;
  /** Schema of the tables; created when missing. Default `trellis`. */
  schema?: string;
}

/**
 * Numbered migrations of the assistants' tables, with their own counter (`assistant_migrations`) so they
 * never collide with the run store's; `S.` is replaced by the quoted schema.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE S.server_assistants (
        assistant_id TEXT PRIMARY KEY, graph_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT,
        config JSONB NOT NULL, context JSONB NOT NULL, metadata JSONB NOT NULL, version INTEGER NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, owner TEXT, system BOOLEAN NOT NULL DEFAULT FALSE);
      CREATE INDEX server_assistants_graph ON S.server_assistants (graph_id);
      CREATE TABLE S.server_assistant_versions (
        assistant_id TEXT NOT NULL, version INTEGER NOT NULL, graph_id TEXT NOT NULL, name TEXT NOT NULL,
        description TEXT, config JSONB NOT NULL, context JSONB NOT NULL, metadata JSONB NOT NULL,
        created_at TEXT NOT NULL, PRIMARY KEY (assistant_id, version));
    `,
  },
];

/** Serializes the assistants' migrations across processes starting at once. */
const MIGRATION_LOCK = 74_120_011;
/** First key of the per-assistant advisory locks (versions are numbered under it). */
const ASSISTANT_LOCK = 74_120_012;

/**
 * The scale-out {@link AssistantStore}: assistants and their versions in PostgreSQL, beside the run
 * store's tables, so API and worker processes resolve the same assistants.
 *
 * @example
 * const store = new PostgresAssistantStore({ pool: saver.pool, schema: "trellis" });
 * await store.setup();
 */
export class PostgresAssistantStore implements AssistantStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #s: string;
  #ready: Promise<void> | undefined;
  readonly #queries: SqlAssistantQueries;

  constructor(options: PostgresAssistantStoreOptions) {
    this.#ownsPool = !options.pool;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    this.#s = quotedSchema(options.schema ?? "trellis");
    const exec: SqlExec = {
      all: async (sql, args) => (await this.#pool.query(sql, args as unknown[])).rows as Row[],
      run: async (sql, args) => {
        await this.#pool.query(sql, args as unknown[]);
      },
      batch: (statements) =>
        this.#tx(async (c) => {
          for (const [sql, args] of statements) await c.query(sql, args as unknown[]);
        }),
    };
    this.#queries = new SqlAssistantQueries(postgresDialect(this.#s), exec);
  }

  setup(): Promise<void> {
    this.#ready ??= this.#tx(async (c) => {
      await migratePostgres(c, this.#s, "assistant_migrations", MIGRATION_LOCK, MIGRATIONS);
    });
    return this.#ready;
  }

  async #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      const out = await fn(client);
      await client.query("COMMIT");
      return out;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** A transaction holding the assistant's advisory lock: its versions are numbered one at a time. */
  async #lockedTx<T>(assistantId: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.setup();
    return this.#tx(async (c) => {
      await c.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [ASSISTANT_LOCK, assistantId]);
      return fn(c);
    });
  }

  async #get(c: pg.ClientBase | pg.Pool, assistantId: string): Promise<AssistantRecord | undefined> {
    const { rows } = await c.query(`SELECT * FROM ${this.#s}.server_assistants WHERE assistant_id = $1`, [assistantId]);
    return rows[0] ? assistantFromRow(rows[0] as Row) : undefined;
  }

  async get(assistantId: string): Promise<AssistantRecord | undefined> {
    await this.setup();
    return this.#get(this.#pool, assistantId);
  }

  async #insertVersion(c: pg.ClientBase, v: AssistantVersionRecord): Promise<void> {
    await c.query(
      `INSERT INTO ${this.#s}.server_assistant_versions
         (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      versionRowValues(v),
    );
  }

  async #write(c: pg.ClientBase, r: AssistantRecord): Promise<void> {
    await c.query(
      `INSERT INTO ${this.#s}.server_assistants
         (assistant_id, graph_id, name, description, config, context, metadata, version, created_at, updated_at, owner, system)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (assistant_id) DO UPDATE SET graph_id = excluded.graph_id, name = excluded.name,
         description = excluded.description, config = excluded.config, context = excluded.context,
         metadata = excluded.metadata, version = excluded.version, updated_at = excluded.updated_at`,
      assistantRowValues(r, (b) => b),
    );
  }

  async create(
    record: AssistantRecord,
    ifExists: "raise" | "do_nothing",
  ): Promise<{ record: AssistantRecord; created: boolean }> {
    return this.#lockedTx(record.assistantId, async (c) => {
      const existing = await this.#get(c, record.assistantId);
      if (existing) {
        if (ifExists === "raise") {
          throw assistantTaken(record.assistantId);
        }
        return { record: existing, created: false };
      }
      const first = { ...record, version: 1 };
      await this.#write(c, first);
      await this.#insertVersion(c, versionOf(first, first.createdAt));
      return { record: first, created: true };
    });
  }

  async update(assistantId: string, patch: AssistantPatch, now: string): Promise<AssistantRecord | undefined> {
    return this.#lockedTx(assistantId, async (c) => {
      const latest = await this.#get(c, assistantId);
      if (!latest) return undefined;
      const { rows } = await c.query(
        `SELECT COALESCE(MAX(version), 0) AS v FROM ${this.#s}.server_assistant_versions WHERE assistant_id = $1`,
        [assistantId],
      );
      const next = patched(latest, patch, Number(rows[0]?.v ?? 0) + 1, now);
      await this.#write(c, next);
      await this.#insertVersion(c, versionOf(next, now));
      return next;
    });
  }

  async syncSystem(record: AssistantRecord): Promise<AssistantRecord | undefined> {
    return this.#lockedTx(record.assistantId, async (c) => {
      let existing = await this.#get(c, record.assistantId);
      let moved: AssistantRecord | undefined;
      if (existing && !existing.system) {
        // a user's assistant made before the graph joined trellis.json: moved aside, the id is the graph's
        const to = asideId(record.assistantId);
        await c.query(
          `UPDATE ${this.#s}.server_assistants SET assistant_id = $1, metadata = metadata || jsonb_build_object('moved_from', $2::text) WHERE assistant_id = $2`,
          [to, record.assistantId],
        );
        await c.query(`UPDATE ${this.#s}.server_assistant_versions SET assistant_id = $1 WHERE assistant_id = $2`, [
          to,
          record.assistantId,
        ]);
        moved = await this.#get(c, to);
        existing = undefined;
      }
      if (!existing) {
        await this.#write(c, { ...record, version: 1 });
        await this.#insertVersion(c, versionOf({ ...record, version: 1 }, record.createdAt));
        return moved;
      }
      await c.query(
        `UPDATE ${this.#s}.server_assistant_versions SET name = $2, description = $3 WHERE assistant_id = $1 AND version = 1`,
        [record.assistantId, record.name, record.description],
      );
      if (existing.version === 1 && (existing.name !== record.name || existing.description !== record.description)) {
        await c.query(`UPDATE ${this.#s}.server_assistants SET name = $2, description = $3 WHERE assistant_id = $1`, [
          record.assistantId,
          record.name,
          record.description,
        ]);
      }
      return undefined;
    });
  }

  async delete(assistantId: string): Promise<boolean> {
    return this.#lockedTx(assistantId, async (c) => {
      await c.query(`DELETE FROM ${this.#s}.server_assistant_versions WHERE assistant_id = $1`, [assistantId]);
      const { rowCount } = await c.query(`DELETE FROM ${this.#s}.server_assistants WHERE assistant_id = $1`, [
        assistantId,
      ]);
      return (rowCount ?? 0) > 0;
    });
  }

  async versions(
    assistantId: string,
    options: { metadata?: Record<string, unknown>; limit: number; offset: number },
  ): Promise<AssistantVersionRecord[]> {
    await this.setup();
    return this.#queries.versions(assistantId, options);
  }

  async setLatest(assistantId: string, version: number, now: string): Promise<AssistantRecord | undefined> {
    return this.#lockedTx(assistantId, async (c) => {
      const latest = await this.#get(c, assistantId);
      const { rows } = await c.query(
        `SELECT * FROM ${this.#s}.server_assistant_versions WHERE assistant_id = $1 AND version = $2`,
        [assistantId, version],
      );
      if (!latest || !rows[0]) return undefined;
      const next: AssistantRecord = {
        ...latest,
        ...versionFromRow(rows[0] as Row),
        createdAt: latest.createdAt,
        updatedAt: now,
      };
      await this.#write(c, next);
      return next;
    });
  }

  async search(query: AssistantQuery): Promise<AssistantRecord[]> {
    await this.setup();
    return this.#queries.search(query);
  }

  async count(filter: AssistantFilter): Promise<number> {
    await this.setup();
    return this.#queries.count(filter);
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
