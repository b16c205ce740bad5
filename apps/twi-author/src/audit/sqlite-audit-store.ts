import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type Clock, systemClock } from "@trellis/core";
import BetterSqlite3, { type Database } from "better-sqlite3";
import type { AuditEntry, AuditRow, AuditStore } from "./audit-store.js";

const CREATE = `CREATE TABLE IF NOT EXISTS audit_log (
  conversation_id    TEXT PRIMARY KEY,
  user_id            TEXT NOT NULL,
  tenant_id          TEXT NOT NULL,
  channel            TEXT NOT NULL,
  intent             TEXT,
  llm_model          TEXT,
  revision_count     INTEGER NOT NULL,
  pdf_blob_name      TEXT,
  status             TEXT NOT NULL,
  approval_timestamp TEXT,
  created_at         TEXT NOT NULL
)`;

const UPSERT = `INSERT INTO audit_log (conversation_id, user_id, tenant_id, channel, intent, llm_model, revision_count,
  pdf_blob_name, status, approval_timestamp, created_at)
VALUES (@conversation_id, @user_id, @tenant_id, @channel, @intent, @llm_model, @revision_count, @pdf_blob_name,
  @status, @approval_timestamp, @created_at)
ON CONFLICT (conversation_id) DO UPDATE SET user_id = excluded.user_id, tenant_id = excluded.tenant_id,
  channel = excluded.channel, intent = excluded.intent, llm_model = excluded.llm_model,
  revision_count = excluded.revision_count, pdf_blob_name = excluded.pdf_blob_name, status = excluded.status,
  approval_timestamp = excluded.approval_timestamp`;

/**
 * Options of {@link SqliteAuditStore}.
 *
 * @example
 * const options: SqliteAuditStoreOptions = { filename: ".twi-author/audit.sqlite" };
 */
export interface SqliteAuditStoreOptions {
  /** Database file (created with its directory), or ":memory:". */
  filename: string;
  clock?: Clock;
}

/**
 * The default audit store: an `audit_log` table in a SQLite file (better-sqlite3, WAL).
 *
 * @example
 * const audit = new SqliteAuditStore({ filename: "./data/audit.sqlite" });
 * await audit.record(entry);
 * await audit.get(entry.conversation_id);
 */
export class SqliteAuditStore implements AuditStore {
  readonly #db: Database;
  readonly #clock: Clock;

  constructor(options: SqliteAuditStoreOptions) {
    if (options.filename !== ":memory:") mkdirSync(dirname(options.filename), { recursive: true });
    this.#db = new BetterSqlite3(options.filename, { timeout: 5_000 });
    this.#db.pragma("journal_mode = WAL");
    this.#db.exec(CREATE);
    this.#clock = options.clock ?? systemClock;
  }

  async record(entry: AuditEntry): Promise<void> {
    this.#db.prepare(UPSERT).run({ ...entry, created_at: new Date(this.#clock.now()).toISOString() });
  }

  async get(conversationId: string): Promise<AuditRow | undefined> {
    return this.#db.prepare("SELECT * FROM audit_log WHERE conversation_id = ?").get(conversationId) as
      | AuditRow
      | undefined;
  }

  async list(options: { limit?: number } = {}): Promise<AuditRow[]> {
    return this.#db
      .prepare("SELECT * FROM audit_log ORDER BY created_at DESC, conversation_id LIMIT ?")
      .all(options.limit ?? 100) as AuditRow[];
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}
