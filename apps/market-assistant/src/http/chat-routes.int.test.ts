import { messageText, RuleChatModel } from "@trellis/models";
import type { Hono } from "hono";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { QUERY_TOOL_NAME } from "../agent/query-tool.js";
import { recordingLogger } from "../logger.js";
import { createMarketAssistant, type MarketAssistant } from "../market-assistant.js";
import { closedPortUrl, deleteKeys, inspectRedis } from "../test/redis-helpers.js";
import { REDIS_URL, requireRedis, uniqueName } from "../test/service-urls.js";
import type { ChatMessage } from "../transcript/chat-message.js";
import { createChatRoutes } from "./chat-routes.js";

const redisUp = await requireRedis();

async function post(app: Hono, body: unknown): Promise<{ status: number; json: ChatMessage & Record<string, never> }> {
  const res = await app.request("/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as ChatMessage & Record<string, never> };
}

describe.skipIf(!redisUp)("POST /chat with transcripts in Redis (the seed's test cases)", () => {
  const keyPrefix = `${uniqueName("ma-test")}:`;
  const logger = recordingLogger();
  let assistant: MarketAssistant;
  let app: Hono;
  let redis: Redis;
  let model: RuleChatModel;
  const key = (thread: string) => `${keyPrefix}thread:${thread}:messages`;

  beforeAll(async () => {
    assistant = await createMarketAssistant({
      env: {},
      config: { redisUrl: REDIS_URL, redisKeyPrefix: keyPrefix, sqlitePath: ":memory:" },
      logger,
    });
    app = createChatRoutes(assistant);
    redis = inspectRedis();
    model = assistant.model as RuleChatModel;
  });
  beforeEach(() => {
    model.calls.length = 0;
  });
  afterAll(async () => {
    await deleteKeys(keyPrefix);
    redis.disconnect();
    await assistant.close();
  });

  it("single query: the top 5 companies by market cap, stored with the seed's metadata", async () => {
    const { status, json } = await post(app, {
      thread_id: "single",
      message: "What are the top 5 companies by market cap?",
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ thread_id: "single", role: "assistant" });
    expect(json.metadata).toMatchObject({
      agent_type: "langgraph",
      model: "market-assistant-offline",
      outcome: "answered",
    });
    expect(json.metadata?.processing_time).toBeGreaterThanOrEqual(0);
    const lines = json.content.split("\n").filter((l) => /^\d\. /.test(l));
    expect(lines.map((l) => l.replace(/ \(.*$/, ""))).toEqual([
      "1. John Keells Holdings PLC",
      "2. Ceylon Tobacco Company PLC",
      "3. Commercial Bank of Ceylon PLC",
      "4. LOLC Holdings PLC",
      "5. Hatton National Bank PLC",
    ]);
    expect(json.content).toContain("SAMPLE DATA");

    const stored = (await redis.lrange(key("single"), 0, -1)).map((s) => JSON.parse(s) as ChatMessage);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[0]?.content).toBe("What are the top 5 companies by market cap?");
    expect(stored[1]).toEqual(json);
    const ttl = await redis.ttl(key("single"));
    expect(ttl).toBeGreaterThan(86_400 - 10);
    expect(ttl).toBeLessThanOrEqual(86_400);

    const listed = await (await app.request("/threads/single/messages")).json();
    expect(listed).toEqual({ thread_id: "single", messages: stored });
  });

  it("multi-turn: 'What companies do they own?' is resolved from the transcript in Redis", async () => {
    const first = await post(app, { thread_id: "multi", message: "Tell me about John Keells" });
    expect(first.json.content).toContain("John Keells Holdings PLC (JKH) — Capital Goods.");
    const second = await post(app, { thread_id: "multi", message: "What companies do they own?" });
    expect(second.status).toBe(200);
    expect(second.json.content).toContain("I took your question to be about John Keells Holdings PLC");
    expect(second.json.content).toContain("John Keells Holdings PLC holds stakes in 8 companies (7 directly)");
    expect(second.json.content).toContain("- Ceylon Cold Stores PLC (Food, Beverage & Tobacco; listed");
    expect(second.json.content).toContain(
      "JayKay Marketing Services (Pvt) Ltd (Food & Staples Retailing; unlisted): effective 81.3%",
    );

    // What the model saw on the second turn: the whole transcript, the new message once, at the end.
    const prompt = messageText(model.calls.at(-1)?.messages[0]);
    expect(prompt).toContain("Human: Tell me about John Keells\nAgent: Here is what the company database says:");
    expect(prompt).toContain("\nHuman: What companies do they own?\n\nPlease analyze the conversation above");
    expect(prompt.split("What companies do they own?")).toHaveLength(2);
    expect(model.calls.at(-1)?.messages[1]?.content).toBe(
      "Please answer the last question asked in the conversation history above.",
    );

    expect(await redis.llen(key("multi"))).toBe(4);
    const thread = (await (await app.request("/threads/multi/messages")).json()) as { messages: ChatMessage[] };
    expect(thread.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "Tell me about John Keells"],
      ["assistant", first.json.content],
      ["user", "What companies do they own?"],
      ["assistant", second.json.content],
    ]);
  });

  it("complex query: comparing banks and technology companies takes several tool calls", async () => {
    const { json } = await post(app, {
      thread_id: "compare",
      message: "Compare the financial metrics of banks vs technology companies",
    });
    expect(model.calls.map((c) => c.rule)).toEqual(["query-database", "query-database", "answer"]);
    const lastCall = model.calls.at(-1)?.messages ?? [];
    expect(lastCall.filter((m) => m.role === "tool").map((m) => m.content.split("\n")[0])).toEqual([
      "Financial metrics of Banks, 4 listed companies, FY2024:",
      "Financial metrics of Technology (covers Software & Services, Telecommunication Services), 3 listed companies, FY2024:",
    ]);
    expect(json.content).toMatch(/^Comparison of Banks vs Technology, from 2 queries to the company database:/);
    expect(json.content).toContain("### Banks\nFinancial metrics of Banks, 4 listed companies, FY2024:");
    expect(json.content).toContain(
      "- Total revenue: LKR 537,000 mn; total net profit: LKR 127,500 mn; net margin 23.7%",
    );
    expect(json.content).toContain(
      "### Technology\nFinancial metrics of Technology (covers Software & Services, Telecommunication Services)",
    );
    expect(json.content.match(/SAMPLE DATA/g)).toHaveLength(1);
  });

  it("the TTL is configurable", async () => {
    const shortLived = await createMarketAssistant({
      env: {},
      config: { redisUrl: REDIS_URL, redisKeyPrefix: keyPrefix, sqlitePath: ":memory:", transcriptTtlSeconds: 90 },
      logger,
    });
    try {
      await post(createChatRoutes(shortLived), { thread_id: "short", message: "Tell me about HNB" });
      const ttl = await redis.ttl(key("short"));
      expect(ttl).toBeGreaterThan(80);
      expect(ttl).toBeLessThanOrEqual(90);
    } finally {
      await shortLived.close();
    }
  });

  it("iteration cap: a model that never stops calling tools gets a partial answer after 10 turns", async () => {
    let n = 0;
    const relentless = new RuleChatModel({
      model: "relentless",
      rules: [
        {
          when: () => true,
          reply: () => ({
            toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: `Who owns Ceylon Cold Stores? (${++n})` } }],
          }),
        },
      ],
    });
    const capped = await createMarketAssistant({
      env: {},
      model: relentless,
      config: { redisUrl: REDIS_URL, redisKeyPrefix: keyPrefix, sqlitePath: ":memory:" },
      logger,
    });
    try {
      const { status, json } = await post(createChatRoutes(capped), { thread_id: "capped", message: "Who owns CCS?" });
      expect(status).toBe(200);
      expect(relentless.calls).toHaveLength(10);
      expect(json.metadata).toMatchObject({ model: "relentless", outcome: "partial" });
      expect(json.content).toMatch(
        /^I reached the limit of 10 reasoning steps before finishing, so this answer is partial/,
      );
      expect(json.content).toContain(
        "Owners of Ceylon Cold Stores PLC:\n- John Keells Holdings PLC holds 81.3% directly",
      );
      expect(await redis.llen(key("capped"))).toBe(2);
    } finally {
      await capped.close();
    }
  });

  it("answers 400 to bad bodies and stores nothing", async () => {
    const cases: [unknown, RegExp][] = [
      ["{not json", /must be JSON/],
      [{ message: "hi" }, /thread_id/],
      [{ thread_id: "bad", message: "   " }, /message must not be empty/],
      [{ thread_id: "bad", message: 42 }, /message/],
      [{ thread_id: "has spaces", message: "hi" }, /thread_id must be/],
      [{ thread_id: "bad", message: "x".repeat(8_001) }, /at most 8000/],
      [[], /Invalid chat request/],
    ];
    for (const [body, why] of cases) {
      const { status, json } = await post(app, body);
      expect(status, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect((json as unknown as { error: { code: string; message: string } }).error).toMatchObject({
        code: "INVALID_REQUEST",
        message: expect.stringMatching(why),
      });
    }
    expect(await redis.exists(key("bad"), key("has spaces"))).toBe(0);
    expect((await app.request("/threads/not%20ok/messages")).status).toBe(400);
    expect((await app.request("/nope")).status).toBe(404);
  });

  it("reports health", async () => {
    const res = await app.request("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ok",
      transcript_store: { kind: "redis", status: "ok" },
      database: { dialect: "sqlite", status: "ok" },
      model: { provider: "rules", model: "market-assistant-offline" },
    });
  });
});

describe("POST /chat with Redis unreachable", () => {
  it("answers without history, logs it, and says so in the metadata", async () => {
    const logger = recordingLogger();
    const assistant = await createMarketAssistant({
      env: {},
      config: { redisUrl: await closedPortUrl(), sqlitePath: ":memory:" },
      logger,
    });
    const app = createChatRoutes(assistant);
    try {
      const started = Date.now();
      const { status, json } = await post(app, {
        thread_id: "down",
        message: "What are the top 5 companies by market cap?",
      });
      // answered without the transcript, not held by the unreachable Redis (a margin a loaded machine keeps)
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(status).toBe(200);
      expect(json.content).toContain("1. John Keells Holdings PLC");
      expect(json.metadata).toMatchObject({ agent_type: "langgraph", history: "unavailable", outcome: "answered" });
      const warnings = logger.lines.filter((l) => l.level === "warn").map((l) => l.message);
      expect(warnings.some((w) => /^Redis transcript store unreachable/.test(w))).toBe(true);
      expect(warnings.some((w) => /^Could not store the user message of thread down in redis/.test(w))).toBe(true);
      expect(
        warnings.some((w) =>
          /^Could not load the transcript of thread down from redis .*answering without history/.test(w),
        ),
      ).toBe(true);
      expect(warnings.some((w) => /^Could not store the assistant message of thread down in redis/.test(w))).toBe(true);

      // Without history a follow-up cannot be resolved; the answer says what it can do instead.
      const followUp = await post(app, { thread_id: "down", message: "What companies do they own?" });
      expect(followUp.status).toBe(200);
      expect(followUp.json.content).toContain(
        'I could not match "What companies do they own?" to the company database',
      );

      const thread = await app.request("/threads/down/messages");
      expect(thread.status).toBe(503);
      expect(((await thread.json()) as { error: { code: string } }).error.code).toBe("STORE_UNAVAILABLE");
      const health = await app.request("/health");
      expect(health.status).toBe(503);
      expect(((await health.json()) as { status: string }).status).toBe("degraded");
    } finally {
      await assistant.close();
    }
  });
});
