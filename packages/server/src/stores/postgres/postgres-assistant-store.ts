import { TrellisError } from "@trellis/checkpoint";
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
  sortColumn,
  versionOf,
} from "../assistant-store.js";
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

type Row = Record<string, unknown>;

function versionRow(r: Row): AssistantVersionRecord {
  return {
    assistantId: r.assistant_id as string,
    version: Number(r.version),
    graphId: r.graph_id as string,
    name: r.name as string,
    description: (r.description as string | null) ?? null,
    config: (r.config as AssistantVersionRecord["config"]) ?? {},
    context: (r.context as Record<string, unknown>) ?? {},
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    createdAt: r.created_at as string,
  };
}

function assistantRow(r: Row): AssistantRecord {
  return {
    ...versionRow(r),
    updatedAt: r.updated_at as string,
    owner: (r.owner as string | null) ?? null,
    system: r.system === true,
  };
}

const json = (value: unknown): string => JSON.stringify(value ?? {});

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

  constructor(options: PostgresAssistantStoreOptions) {
    this.#ownsPool = !options.pool;
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString });
    this.#s = quotedSchema(options.schema ?? "trellis");
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
    return rows[0] ? assistantRow(rows[0] as Row) : undefined;
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
      [
        v.assistantId,
        v.version,
        v.graphId,
        v.name,
        v.description,
        json(v.config),
        json(v.context),
        json(v.metadata),
        v.createdAt,
      ],
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
      [
        r.assistantId,
        r.graphId,
        r.name,
        r.description,
        json(r.config),
        json(r.context),
        json(r.metadata),
        r.version,
        r.createdAt,
        r.updatedAt,
        r.owner,
        r.system,
      ],
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
          throw new TrellisError(
            "CONFLICT",
            `Assistant "${record.assistantId}" already exists: pass if_exists "do_nothing" to get it, or another assistant_id.`,
            { details: { assistantId: record.assistantId } },
          );
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
    const args: unknown[] = [assistantId];
    let where = "assistant_id = $1";
    if (options.metadata && Object.keys(options.metadata).length > 0) {
      args.push(json(options.metadata));
      where += ` AND metadata @> $${args.length}::jsonb`;
    }
    args.push(options.limit, options.offset);
    const { rows } = await this.#pool.query(
      `SELECT * FROM ${this.#s}.server_assistant_versions WHERE ${where} ORDER BY version DESC LIMIT $${args.length - 1} OFFSET $${args.length}`,
      args,
    );
    return (rows as Row[]).map(versionRow);
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
        ...versionRow(rows[0] as Row),
        createdAt: latest.createdAt,
        updatedAt: now,
      };
      await this.#write(c, next);
      return next;
    });
  }

  #where(filter: AssistantFilter, args: unknown[]): string {
    const clauses: string[] = [];
    const add = (sql: (p: string) => string, value: unknown) => {
      args.push(value);
      clauses.push(sql(`$${args.length}`));
    };
    if (filter.metadata && Object.keys(filter.metadata).length > 0)
      add((p) => `metadata @> ${p}::jsonb`, json(filter.metadata));
    if (filter.graphId !== undefined) add((p) => `graph_id = ${p}`, filter.graphId);
    if (filter.graphIds) add((p) => `graph_id = ANY(${p}::text[])`, [...filter.graphIds]);
    if (filter.name !== undefined) add((p) => `strpos(lower(name), lower(${p})) > 0`, filter.name);
    if (filter.visibleTo !== undefined) add((p) => `(system OR owner IS NOT DISTINCT FROM ${p})`, filter.visibleTo);
    return clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
  }

  async search(query: AssistantQuery): Promise<AssistantRecord[]> {
    await this.setup();
    const args: unknown[] = [];
    const where = this.#where(query, args);
    const order = query.sortOrder === "asc" ? "ASC" : "DESC";
    args.push(query.limit, query.offset);
    const { rows } = await this.#pool.query(
      `SELECT * FROM ${this.#s}.server_assistants ${where} ORDER BY ${sortColumn(query)} ${order}, assistant_id ${order}
       LIMIT $${args.length - 1} OFFSET $${args.length}`,
      args,
    );
    return (rows as Row[]).map(assistantRow);
  }

  async count(filter: AssistantFilter): Promise<number> {
    await this.setup();
    const args: unknown[] = [];
    const where = this.#where(filter, args);
    const { rows } = await this.#pool.query(`SELECT COUNT(*) AS n FROM ${this.#s}.server_assistants ${where}`, args);
    return Number(rows[0]?.n ?? 0);
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
