import { startFakeOpenAiServer } from "@trellis/models/testing";
import { describe, expect, it } from "vitest";
import { QUERY_TOOL_NAME } from "../agent/query-tool.js";
import { SAMPLE_DATA_NOTICE } from "../companies/company-dataset.js";
import { recordingLogger } from "../logger.js";
import { createMarketAssistant } from "../market-assistant.js";
import type { ChatMessage } from "../transcript/chat-message.js";
import { createChatRoutes } from "./chat-routes.js";

const openAiEnv = (url: string) => ({
  TRELLIS_MODEL_PROVIDER: "openai",
  OPENAI_API_KEY: "sk-test",
  OPENAI_BASE_URL: url,
  TRELLIS_MODEL_MAX_RETRIES: "0",
});

type Body = {
  messages: { role: string; content: string; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
};

describe("with a real model configured, the supervisor is an LLM agent querying the graph (issue 23, finding 2)", () => {
  it("POST /chat: the supervisor model picks the graph tools, and its answer reaches the main agent", async () => {
    const question = "Which 3 companies have the lowest P/E ratio?";
    const server = await startFakeOpenAiServer([
      // 1. the main agent hands the question to query_graph_database
      { toolCalls: [{ id: "call_main", name: QUERY_TOOL_NAME, args: { query: question } }] },
      // 2. the supervisor model queries the graph
      {
        toolCalls: [{ id: "call_rank", name: "rank_companies", args: { metric: "pe_ratio", order: "asc", limit: 3 } }],
      },
      // 3. the supervisor answers from the tool result
      "Lowest P/E: Nations Trust Bank 2.7x, Hatton National Bank 3.1x, Sampath Bank 3.4x.",
      // 4. the main agent answers the user
      "The three lowest P/E ratios are Nations Trust Bank (2.7x), HNB (3.1x) and Sampath Bank (3.4x).",
    ]);
    const assistant = await createMarketAssistant({
      env: openAiEnv(server.url),
      config: { sqlitePath: ":memory:" },
      logger: recordingLogger(),
    });
    try {
      const res = await createChatRoutes(assistant).request("/chat", {
        method: "POST",
        body: JSON.stringify({ thread_id: "llm-sup", message: question }),
      });
      expect(res.status).toBe(200);
      const reply = (await res.json()) as ChatMessage;
      expect(reply.content).toBe(
        "The three lowest P/E ratios are Nations Trust Bank (2.7x), HNB (3.1x) and Sampath Bank (3.4x).",
      );

      const bodies = server.requests.map((r) => r.body as Body);
      expect(bodies).toHaveLength(4);
      // the supervisor's first request: its own prompt, the question, the graph tools
      const supervisor = bodies[1] as Body;
      expect(supervisor.messages[0]?.content).toContain(
        "You are the supervisor of a graph database of listed companies",
      );
      expect(supervisor.messages[1]).toMatchObject({ role: "user", content: question });
      expect(supervisor.tools?.map((t) => t.function.name)).toEqual([
        "rank_companies",
        "company_profile",
        "company_metrics",
        "company_holdings",
        "company_owners",
        "sector_metrics",
      ]);
      // the graph query's result, as the supervisor model saw it
      const ranked = (bodies[2] as Body).messages.find((m) => m.role === "tool");
      expect(ranked).toMatchObject({ tool_call_id: "call_rank" });
      expect(ranked?.content).toContain(
        "Lowest 3 listed companies by P/E ratio (lowest first):\n1. Nations Trust Bank PLC (NTB, Banks): 2.7x\n2. Hatton National Bank PLC (HNB, Banks): 3.1x\n3. Sampath Bank PLC (SAMP, Banks): 3.4x",
      );
      // the supervisor's answer, with the sample-data notice, is the main agent's tool result
      const toolResult = (bodies[3] as Body).messages.find((m) => m.role === "tool");
      expect(toolResult).toMatchObject({ tool_call_id: "call_main" });
      expect(toolResult?.content).toBe(
        `Lowest P/E: Nations Trust Bank 2.7x, Hatton National Bank 3.1x, Sampath Bank 3.4x.\n\n(${SAMPLE_DATA_NOTICE})`,
      );
    } finally {
      await assistant.close();
      await server.close();
    }
  });

  it("a name the database does not know is answered with the names it does", async () => {
    const server = await startFakeOpenAiServer([
      { toolCalls: [{ id: "c1", name: QUERY_TOOL_NAME, args: { query: "Who owns Acme?" } }] },
      { toolCalls: [{ id: "c2", name: "company_owners", args: { company: "Acme Corp" } }] },
      "The database has no company called Acme.",
      "I could not find Acme in the database.",
    ]);
    const assistant = await createMarketAssistant({
      env: openAiEnv(server.url),
      config: { sqlitePath: ":memory:" },
      logger: recordingLogger(),
    });
    try {
      const res = await createChatRoutes(assistant).request("/chat", {
        method: "POST",
        body: JSON.stringify({ thread_id: "llm-unknown", message: "Who owns Acme?" }),
      });
      expect(res.status).toBe(200);
      const owners = (server.requests[2]?.body as Body | undefined)?.messages.find((m) => m.role === "tool");
      expect(owners?.content).toContain('No company named "Acme Corp" in the database. Its companies: ');
      expect(owners?.content).toContain("John Keells Holdings PLC (JKH)");
    } finally {
      await assistant.close();
      await server.close();
    }
  });
});
