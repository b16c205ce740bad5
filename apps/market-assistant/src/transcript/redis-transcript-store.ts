import { Redis } from "ioredis";
import type { Logger } from "../logger.js";
import { type ChatMessage, parseChatMessage, type TranscriptStore } from "./chat-message.js";

/** Options of {@link RedisTranscriptStore}. */
export interface RedisTranscriptStoreOptions {
  /** `redis://host:port/db`. */
  url: string;
  /** Prepended to every key. Default `market-assistant:`. */
  keyPrefix?: string;
  /** Seconds a thread lives after its last message. Default 86 400 (24 hours). */
  ttlSeconds?: number;
  /** Milliseconds before a command or a connection attempt gives up. Default 2 000. */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * Transcripts in Redis, as the seed designs: one list per thread (`<prefix>thread:<id>:messages`) of
 * JSON messages, whose TTL is reset to `ttlSeconds` by every append (RPUSH and EXPIRE in one MULTI).
 * Commands fail fast when Redis is unreachable (bounded retries and a command timeout), so the caller
 * can answer without history instead of hanging; the client keeps reconnecting in the background.
 *
 * @example
 * const store = new RedisTranscriptStore({ url: "redis://127.0.0.1:6379", ttlSeconds: 86_400 });
 * await store.append(message);
 */
export class RedisTranscriptStore implements TranscriptStore {
  readonly kind = "redis";
  readonly ttlSeconds: number;
  readonly keyPrefix: string;
  readonly #redis: Redis;
  readonly #logger: Logger | undefined;
  readonly #timeoutMs: number;
  /** The last connection error, until the connection is ready again. */
  #down: Error | undefined;

  constructor(options: RedisTranscriptStoreOptions) {
    this.ttlSeconds = options.ttlSeconds ?? 86_400;
    if (!Number.isInteger(this.ttlSeconds) || this.ttlSeconds < 1) {
      throw new Error(`ttlSeconds must be a positive integer, got ${String(options.ttlSeconds)}.`);
    }
    this.keyPrefix = options.keyPrefix ?? "market-assistant:";
    this.#logger = options.logger;
    const timeoutMs = options.timeoutMs ?? 2_000;
    this.#timeoutMs = timeoutMs;
    this.#redis = new Redis(options.url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      maxRetriesPerRequest: 1,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.#redis.on("error", (error: Error) => {
      if (!this.#down) {
        this.#logger?.warn(`Redis transcript store unreachable (${error.message}); retrying in the background.`);
      }
      this.#down = error;
    });
    this.#redis.on("ready", () => {
      if (this.#down) this.#logger?.info("Redis transcript store reachable again.");
      this.#down = undefined;
    });
  }

  /** The key holding a thread's messages. */
  key(threadId: string): string {
    return `${this.keyPrefix}thread:${threadId}:messages`;
  }

  async append(message: ChatMessage): Promise<void> {
    const key = this.key(message.thread_id);
    const results = await this.#run(() =>
      this.#redis.multi().rpush(key, JSON.stringify(message)).expire(key, this.ttlSeconds).exec(),
    );
    const failed = results?.find(([error]) => error);
    if (!results || failed) throw failed?.[0] ?? new Error("Redis discarded the transaction.");
  }

  async list(threadId: string): Promise<ChatMessage[]> {
    const raw = await this.#run(() => this.#redis.lrange(this.key(threadId), 0, -1));
    const messages: ChatMessage[] = [];
    for (const entry of raw) {
      const message = parseChatMessage(entry);
      if (message) messages.push(message);
      else this.#logger?.warn(`Skipped an entry of ${this.key(threadId)} that is not a chat message.`);
    }
    return messages;
  }

  async delete(threadId: string): Promise<void> {
    await this.#run(() => this.#redis.del(this.key(threadId)));
  }

  async ping(): Promise<void> {
    await this.#run(() => this.#redis.ping());
  }

  /**
   * Runs a command, or fails at once while the connection is known to be down (the client reconnects
   * in the background), and gives up after the timeout.
   */
  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (this.#down && this.#redis.status !== "ready") {
      throw new Error(`Redis is unreachable: ${this.#down.message}`);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        command(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`)),
            this.#timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#redis.status === "end") return;
    try {
      await this.#redis.quit();
    } catch {
      this.#redis.disconnect();
    }
  }
}
