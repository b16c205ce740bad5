import { type Clock, systemClock } from "@trellis/core";
import pg from "pg";
import type { AuditEntry, AuditRow, AuditStore } from "./audit-store.js";

/**
 * Options of {@link PostgresAuditStore}.
 *
 * @example
 * const options: PostgresAuditStoreOptions = { url: "postgres://app@db:5432/twi", schema: "twi" };
 */
export interface PostgresAuditStoreOptions {
  /** Connection string, used when no `pool` is given. */
  url?: string;
  /** A pool to use instead; the store will not end it. */
  pool?: pg.Pool;
  /** Schema of the `audit_log` table. Default `public`. */
  schema?: string;
  clock?: Clock;
}

/**
 * The audit store for production: an `audit_log` table in PostgreSQL (the seed used a Cosmos DB
 * collection). The table is created on first use.
 *
 * @example
 * const audit = new PostgresAuditStore({ url: process.env.TWI_AUDIT_DATABASE_URL });
 * await audit.record(entry);
 */
export class PostgresAuditStore implements AuditStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;
  readonly #schema: string;
  readonly #clock: Clock;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresAuditStoreOptions) {
    if (!options.pool && !options.url) throw new Error("PostgresAuditStore needs a `url` or a `pool`.");
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.url, max: 4 });
    this.#ownsPool = !options.pool;
    this.#schema = options.schema ?? "public";
    if (!/^[a-z_][a-z0-9_]*$/.test(this.#schema)) throw new Error(`Invalid schema name "${this.#schema}".`);
    this.#table = `"${this.#schema}".audit_log`;
    this.#clock = options.clock ?? systemClock;
  }

  #ensure(): Promise<void> {
    this.#ready ??= this.#pool
      .query(
        `CREATE SCHEMA IF NOT EXISTS "${this.#schema}";
         CREATE TABLE IF NOT EXISTS ${this.#table} (
           conversation_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, tenant_id TEXT NOT NULL, channel TEXT NOT NULL,
           intent TEXT, llm_model TEXT, revision_count INTEGER NOT NULL, pdf_blob_name TEXT, status TEXT NOT NULL,
           approval_timestamp TEXT, created_at TEXT NOT NULL)`,
      )
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  async record(e: AuditEntry): Promise<void> {
    await this.#ensure();
    await this.#pool.query(
      `INSERT INTO ${this.#table} (conversation_id, user_id, tenant_id, channel, intent, llm_model, revision_count,
         pdf_blob_name, status, approval_timestamp, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (conversation_id) DO UPDATE SET user_id = EXCLUDED.user_id, tenant_id = EXCLUDED.tenant_id,
         channel = EXCLUDED.channel, intent = EXCLUDED.intent, llm_model = EXCLUDED.llm_model,
         revision_count = EXCLUDED.revision_count, pdf_blob_name = EXCLUDED.pdf_blob_name, status = EXCLUDED.status,
         approval_timestamp = EXCLUDED.approval_timestamp`,
      [
        e.conversation_id,
        e.user_id,
        e.tenant_id,
        e.channel,
        e.intent,
        e.llm_model,
        e.revision_count,
        e.pdf_blob_name,
        e.status,
        e.approval_timestamp,
        new Date(this.#clock.now()).toISOString(),
      ],
    );
  }

  async get(conversationId: string): Promise<AuditRow | undefined> {
    await this.#ensure();
    const result = await this.#pool.query(`SELECT * FROM ${this.#table} WHERE conversation_id = $1`, [conversationId]);
    return result.rows[0] as AuditRow | undefined;
  }

  async list(options: { limit?: number } = {}): Promise<AuditRow[]> {
    await this.#ensure();
    const result = await this.#pool.query(
      `SELECT * FROM ${this.#table} ORDER BY created_at DESC, conversation_id LIMIT $1`,
      [options.limit ?? 100],
    );
    return result.rows as AuditRow[];
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}
