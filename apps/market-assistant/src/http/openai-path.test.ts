import { startFakeOpenAiServer } from "@trellis/models/testing";
import { describe, expect, it } from "vitest";
import { QUERY_TOOL_NAME } from "../agent/query-tool.js";
import { recordingLogger } from "../logger.js";
import { createMarketAssistant } from "../market-assistant.js";
import type { ChatMessage } from "../transcript/chat-message.js";
import { createChatRoutes } from "./chat-routes.js";

/** The environment that selects OpenAI, pointed at the local fake server. */
const openAiEnv = (url: string) => ({
  TRELLIS_MODEL_PROVIDER: "openai",
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: url,
  TRELLIS_MODEL_MAX_RETRIES: "0",
});

async function chat(app: ReturnType<typeof createChatRoutes>, thread_id: string, message: string) {
  const res = await app.request("/chat", { method: "POST", body: JSON.stringify({ thread_id, message }) });
  expect(res.status).toBe(200);
  return (await res.json()) as ChatMessage;
}

describe("the LLM path, through a local server speaking OpenAI's protocol", () => {
  it("sends the seed's prompt and tool, runs the tool on the tool call, and answers with gpt-4o-mini", async () => {
    const server = await startFakeOpenAiServer([
      { toolCalls: [{ id: "call_1", name: QUERY_TOOL_NAME, args: { query: "top 5 companies by market cap" } }] },
      "The five largest listed companies are John Keells, Ceylon Tobacco, Commercial Bank, LOLC and HNB.",
      "You asked about the largest listed companies.",
    ]);
    const assistant = await createMarketAssistant({
      env: openAiEnv(server.url),
      config: { sqlitePath: ":memory:" },
      logger: recordingLogger(),
      // the keyword planner behind the tool, so that every request here is the main agent's
      // (the LLM supervisor is llm-supervisor.test.ts)
      supervisorModel: null,
    });
    try {
      expect(assistant.model).toMatchObject({ provider: "openai", model: "gpt-4o-mini" });
      const app = createChatRoutes(assistant);
      const reply = await chat(app, "llm", "What are the top 5 companies by market cap?");
      expect(reply.content).toBe(
        "The five largest listed companies are John Keells, Ceylon Tobacco, Commercial Bank, LOLC and HNB.",
      );
      expect(reply.metadata).toMatchObject({ agent_type: "langgraph", model: "gpt-4o-mini", outcome: "answered" });

      const [first, second] = server.requests.map((r) => r.body);
      expect(first.model).toBe("gpt-4o-mini");
      expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([QUERY_TOOL_NAME]);
      expect(first.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
      expect(first.messages[0].content).toContain(
        "CONVERSATION HISTORY:\nHuman: What are the top 5 companies by market cap?\n\nPlease analyze",
      );
      expect(first.messages[1].content).toBe(
        "Please answer the last question asked in the conversation history above.",
      );
      expect(second.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
      expect(second.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_1" });
      expect(second.messages[3].content).toContain("1. John Keells Holdings PLC (JKH, Capital Goods): LKR 330,000 mn");

      // The next turn's transcript, from the embedded store, carries the first exchange.
      await chat(app, "llm", "What did I just ask?");
      const third = server.requests[2]?.body;
      expect(third.messages[0].content).toContain(
        "Human: What are the top 5 companies by market cap?\nAgent: The five largest listed companies are John Keells",
      );
      expect(third.messages[0].content).toContain("\nHuman: What did I just ask?\n\nPlease analyze");
    } finally {
      await assistant.close();
      await server.close();
    }
  });

  it("apologises with the provider's error when the model call fails", async () => {
    const server = await startFakeOpenAiServer([{ status: 401 }]);
    const logger = recordingLogger();
    const assistant = await createMarketAssistant({
      env: openAiEnv(server.url),
      config: { sqlitePath: ":memory:" },
      logger,
    });
    try {
      const reply = await chat(createChatRoutes(assistant), "llm-down", "Tell me about HNB");
      expect(reply.content).toMatch(/^I'm sorry, I couldn't generate a response because the language model failed: /);
      expect(reply.metadata).toMatchObject({ model: "gpt-4o-mini", outcome: "llm_error" });
      expect(
        logger.lines.some((l) => l.level === "error" && /The model \(openai\/gpt-4o-mini\) failed/.test(l.message)),
      ).toBe(true);
    } finally {
      await assistant.close();
      await server.close();
    }
  });
});
