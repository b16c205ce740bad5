import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatRoutes } from "./http/chat-routes.js";
import { recordingLogger } from "./logger.js";
import { createMarketAssistant, type MarketAssistant } from "./market-assistant.js";
import { deleteKeys } from "./test/redis-helpers.js";
import {
  dropPostgresSchema,
  POSTGRES_URL,
  REDIS_URL,
  requirePostgres,
  requireRedis,
  uniqueName,
} from "./test/service-urls.js";
import type { ChatMessage } from "./transcript/chat-message.js";

const servicesUp = (await requirePostgres()) && (await requireRedis());

describe.skipIf(!servicesUp)(
  "the production setup from the environment: company graph in PostgreSQL, transcripts in Redis",
  () => {
    const schema = uniqueName("market_assistant_app");
    const keyPrefix = `${uniqueName("ma-test")}:`;
    let assistant: MarketAssistant;
    let app: Hono;
    beforeAll(async () => {
      assistant = await createMarketAssistant({
        env: {
          REDIS_URL,
          MARKET_ASSISTANT_REDIS_PREFIX: keyPrefix,
          MARKET_ASSISTANT_DATABASE_URL: POSTGRES_URL,
          MARKET_ASSISTANT_PG_SCHEMA: schema,
          MARKET_ASSISTANT_SQLITE_PATH: ":memory:",
        },
        logger: recordingLogger(),
      });
      app = createChatRoutes(assistant);
    });
    afterAll(async () => {
      await assistant?.close();
      await deleteKeys(keyPrefix);
      await dropPostgresSchema(schema);
    });

    const ask = async (thread_id: string, message: string) =>
      (await (
        await app.request("/chat", { method: "POST", body: JSON.stringify({ thread_id, message }) })
      ).json()) as ChatMessage;

    it("uses PostgreSQL and Redis", async () => {
      expect(assistant.database.dialect).toBe("postgres");
      expect(assistant.store.kind).toBe("redis");
      const health = await (await app.request("/health")).json();
      expect(health).toMatchObject({
        status: "ok",
        database: { dialect: "postgres" },
        transcript_store: { kind: "redis" },
      });
    });

    it("answers the seed's three cases with recursive queries on PostgreSQL", async () => {
      expect((await ask("pg-1", "What are the top 5 companies by market cap?")).content).toContain(
        "5. Hatton National Bank PLC (HNB, Banks): LKR 124,000 mn",
      );
      await ask("pg-2", "Tell me about John Keells");
      const owned = await ask("pg-2", "What companies do they own?");
      expect(owned.content).toContain(
        "- JayKay Marketing Services (Pvt) Ltd (Food & Staples Retailing; unlisted): effective 81.3%, 100% held through Ceylon Cold Stores PLC",
      );
      const compared = await ask("pg-3", "Compare the financial metrics of banks vs technology companies");
      expect(compared.content).toContain("### Banks");
      expect(compared.content).toContain("- Average ROE: 15.1%; average P/E: 8.9x; average dividend yield: 3.4%");
    });
  },
);
