import type { TranscriptLimits } from "./transcript/transcript-format.js";

/** Where the app keeps things and how it behaves; see {@link readConfig} for the variables. */
export interface MarketAssistantConfig {
  /** Transcripts in Redis when set; in the embedded SQLite file otherwise. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Seconds a thread's transcript lives after its last message (Redis key TTL). */
  transcriptTtlSeconds: number;
  /** The embedded SQLite file: transcripts without Redis, and the company graph without PostgreSQL. */
  sqlitePath: string;
  /** The company graph in PostgreSQL when set; in `sqlitePath` otherwise. */
  databaseUrl: string | undefined;
  postgresSchema: string;
  /** Most model turns per answer (the seed's `max_iterations`). */
  maxIterations: number;
  transcript: Required<TranscriptLimits>;
  /** Port of `market-assistant serve`. */
  port: number;
}

/**
 * The configuration the environment describes:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `REDIS_URL` | unset | transcripts in Redis (`redis://127.0.0.1:6379`); unset: embedded SQLite |
 * | `MARKET_ASSISTANT_REDIS_PREFIX` | `market-assistant:` | prefix of every Redis key |
 * | `MARKET_ASSISTANT_TTL_SECONDS` | `86400` | a thread expires this long after its last message |
 * | `MARKET_ASSISTANT_SQLITE_PATH` | `.trellis/market-assistant.sqlite` | the embedded database file |
 * | `MARKET_ASSISTANT_DATABASE_URL` | unset | the company graph in PostgreSQL (`postgres://…`) |
 * | `MARKET_ASSISTANT_PG_SCHEMA` | `market_assistant` | its schema |
 * | `MARKET_ASSISTANT_MAX_ITERATIONS` | `10` | model turns per answer |
 * | `MARKET_ASSISTANT_TRANSCRIPT_MAX_CHARS` / `_MAX_MESSAGES` | `16000` / `40` | transcript truncation |
 * | `PORT` | `8124` | port of `market-assistant serve` |
 *
 * The model comes from `TRELLIS_MODEL_*` (or `MARKET_ASSISTANT_MODEL_*`); see `modelFromEnv`.
 *
 * @example
 * const config = readConfig({ REDIS_URL: "redis://127.0.0.1:6379" });
 * config.transcriptTtlSeconds; // 86400
 */
export function readConfig(env: Readonly<Record<string, string | undefined>> = process.env): MarketAssistantConfig {
  const text = (key: string) => {
    const value = env[key]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const int = (key: string, fallback: number, min: number) => {
    const raw = text(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`${key} must be an integer ≥ ${min}, got "${raw}".`);
    return value;
  };
  return {
    redisUrl: text("REDIS_URL"),
    redisKeyPrefix: text("MARKET_ASSISTANT_REDIS_PREFIX") ?? "market-assistant:",
    transcriptTtlSeconds: int("MARKET_ASSISTANT_TTL_SECONDS", 86_400, 1),
    sqlitePath: text("MARKET_ASSISTANT_SQLITE_PATH") ?? ".trellis/market-assistant.sqlite",
    databaseUrl: text("MARKET_ASSISTANT_DATABASE_URL"),
    postgresSchema: text("MARKET_ASSISTANT_PG_SCHEMA") ?? "market_assistant",
    maxIterations: int("MARKET_ASSISTANT_MAX_ITERATIONS", 10, 1),
    transcript: {
      maxChars: int("MARKET_ASSISTANT_TRANSCRIPT_MAX_CHARS", 16_000, 200),
      maxMessages: int("MARKET_ASSISTANT_TRANSCRIPT_MAX_MESSAGES", 40, 1),
    },
    port: int("PORT", 8124, 0),
  };
}
