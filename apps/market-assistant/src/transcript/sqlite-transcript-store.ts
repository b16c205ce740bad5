import Database from "better-sqlite3";
import { type ChatMessage, parseChatMessage, type TranscriptStore } from "./chat-message.js";

/** Options of {@link SqliteTranscriptStore}. */
export interface SqliteTranscriptStoreOptions {
  /** A file path, or `":memory:"`. */
  path: string;
  /** Seconds a thread lives after its last message. Default 86 400 (24 hours), as with Redis. */
  ttlSeconds?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/**
 * Transcripts in the embedded SQLite file: the default when no `REDIS_URL` is set, so multi-turn
 * conversations work offline. Same contract as the Redis store, expiry included: a thread is gone
 * `ttlSeconds` after its last message (expired threads are deleted when next touched).
 *
 * @example
 * const store = new SqliteTranscriptStore({ path: ".trellis/market-assistant.sqlite" });
 * await store.append(message);
 */
export class SqliteTranscriptStore implements TranscriptStore {
  readonly kind = "sqlite";
  readonly ttlSeconds: number;
  readonly #db: Database.Database;
  readonly #now: () => number;

  constructor(options: SqliteTranscriptStoreOptions) {
    this.ttlSeconds = options.ttlSeconds ?? 86_400;
    if (!Number.isInteger(this.ttlSeconds) || this.ttlSeconds < 1) {
      throw new Error(`ttlSeconds must be a positive integer, got ${String(options.ttlSeconds)}.`);
    }
    this.#now = options.now ?? Date.now;
    this.#db = new Database(options.path);
    if (options.path !== ":memory:") this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("busy_timeout = 5000");
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS transcript_threads (thread_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS transcript_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        thread_id TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS transcript_messages_thread ON transcript_messages (thread_id, seq);
    `);
  }

  async append(message: ChatMessage): Promise<void> {
    const now = this.#now();
    this.#db.transaction(() => {
      this.#dropIfExpired(message.thread_id, now);
      this.#db
        .prepare(
          `INSERT INTO transcript_threads (thread_id, expires_at) VALUES (?, ?)
           ON CONFLICT (thread_id) DO UPDATE SET expires_at = excluded.expires_at`,
        )
        .run(message.thread_id, now + this.ttlSeconds * 1000);
      this.#db
        .prepare("INSERT INTO transcript_messages (thread_id, body) VALUES (?, ?)")
        .run(message.thread_id, JSON.stringify(message));
    })();
  }

  async list(threadId: string): Promise<ChatMessage[]> {
    const rows = this.#db.transaction(() => {
      if (this.#dropIfExpired(threadId, this.#now())) return [];
      return this.#db
        .prepare("SELECT body FROM transcript_messages WHERE thread_id = ? ORDER BY seq")
        .all(threadId) as { body: string }[];
    })();
    return rows.flatMap((row) => parseChatMessage(row.body) ?? []);
  }

  async delete(threadId: string): Promise<void> {
    this.#db.transaction(() => {
      this.#db.prepare("DELETE FROM transcript_messages WHERE thread_id = ?").run(threadId);
      this.#db.prepare("DELETE FROM transcript_threads WHERE thread_id = ?").run(threadId);
    })();
  }

  async ping(): Promise<void> {
    this.#db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  /** Deletes the thread when its TTL has passed; true when it did. */
  #dropIfExpired(threadId: string, now: number): boolean {
    const row = this.#db.prepare("SELECT expires_at FROM transcript_threads WHERE thread_id = ?").get(threadId) as
      | { expires_at: number }
      | undefined;
    if (!row || row.expires_at > now) return false;
    this.#db.prepare("DELETE FROM transcript_messages WHERE thread_id = ?").run(threadId);
    this.#db.prepare("DELETE FROM transcript_threads WHERE thread_id = ?").run(threadId);
    return true;
  }
}
