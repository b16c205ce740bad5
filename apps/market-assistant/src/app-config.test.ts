import { RuleChatModel } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { modelFromEnv } from "./agent/model-from-env.js";
import { readConfig } from "./app-config.js";

describe("configuration from the environment", () => {
  it("defaults to the embedded setup: SQLite, no Redis, 24-hour TTL, 10 iterations", () => {
    expect(readConfig({})).toEqual({
      redisUrl: undefined,
      redisKeyPrefix: "market-assistant:",
      transcriptTtlSeconds: 86_400,
      sqlitePath: ".trellis/market-assistant.sqlite",
      databaseUrl: undefined,
      postgresSchema: "market_assistant",
      maxIterations: 10,
      transcript: { maxChars: 16_000, maxMessages: 40 },
      port: 8124,
    });
  });

  it("reads Redis, PostgreSQL, the TTL and the limits", () => {
    const config = readConfig({
      REDIS_URL: "redis://127.0.0.1:6379",
      MARKET_ASSISTANT_TTL_SECONDS: "3600",
      MARKET_ASSISTANT_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
      MARKET_ASSISTANT_MAX_ITERATIONS: "4",
      MARKET_ASSISTANT_TRANSCRIPT_MAX_CHARS: "2000",
      PORT: "9000",
    });
    expect(config).toMatchObject({
      redisUrl: "redis://127.0.0.1:6379",
      transcriptTtlSeconds: 3600,
      databaseUrl: "postgres://postgres@127.0.0.1:5432/test",
      maxIterations: 4,
      transcript: { maxChars: 2000, maxMessages: 40 },
      port: 9000,
    });
  });

  it("refuses numbers that are not", () => {
    expect(() => readConfig({ MARKET_ASSISTANT_TTL_SECONDS: "a day" })).toThrow(/MARKET_ASSISTANT_TTL_SECONDS/);
    expect(() => readConfig({ MARKET_ASSISTANT_MAX_ITERATIONS: "0" })).toThrow(/≥ 1/);
  });

  it("uses the offline model unless a provider is configured; OpenAI defaults to gpt-4o-mini", () => {
    const offline = new RuleChatModel({ rules: [] });
    expect(modelFromEnv({}, offline)).toBe(offline);
    expect(modelFromEnv({ TRELLIS_MODEL_PROVIDER: "offline" }, offline)).toBe(offline);
    const openai = modelFromEnv({ TRELLIS_MODEL_PROVIDER: "openai", OPENAI_API_KEY: "sk-test" }, offline);
    expect(openai).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
    const own = modelFromEnv(
      { MARKET_ASSISTANT_MODEL_PROVIDER: "openai", MARKET_ASSISTANT_MODEL: "gpt-4.1", OPENAI_API_KEY: "k" },
      offline,
    );
    expect(own.model).toBe("gpt-4.1");
  });
});
