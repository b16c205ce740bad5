import { RuleChatModel } from "@trellis/models";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUERY_TOOL_NAME } from "../agent/query-tool.js";
import { SAMPLE_DATA_NOTICE } from "../companies/company-dataset.js";
import { createMarketAssistant, type MarketAssistant } from "../market-assistant.js";
import { createChatRoutes } from "./chat-routes.js";

/** Ten banks and companies, one per model turn: each tool result names a different company. */
const ASKED = [
  ["HNB", "Hatton National Bank PLC"],
  ["Sampath", "Sampath Bank PLC"],
  ["ComBank", "Commercial Bank of Ceylon PLC"],
  ["Nations Trust", "Nations Trust Bank PLC"],
  ["Dialog", "Dialog Axiata PLC"],
  ["Hayleys", "Hayleys PLC"],
  ["Expolanka", "Expolanka Holdings PLC"],
  ["Melstacorp", "Melstacorp PLC"],
  ["Haycarb", "Haycarb PLC"],
  ["Union Assurance", "Union Assurance PLC"],
] as const;

describe("POST /chat at the iteration cap (issue 23, market-assistant finding 3)", () => {
  let assistant: MarketAssistant;
  let app: Hono;

  beforeAll(async () => {
    let n = 0;
    // A model that never stops asking: one company per turn, as a real model lost in a broad question would.
    const relentless = new RuleChatModel({
      model: "relentless",
      rules: [
        {
          name: "always-another-query",
          when: () => true,
          reply: () => ({
            toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: `Tell me about ${ASKED[n++ % ASKED.length]?.[0]}` } }],
          }),
        },
      ],
    });
    assistant = await createMarketAssistant({ env: {}, config: { sqlitePath: ":memory:" }, model: relentless });
    app = createChatRoutes(assistant);
  });
  afterAll(() => assistant.close());

  it("the partial answer gives every tool result gathered, not only the last three", async () => {
    const res = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: "capped", message: "Tell me everything about every company" }),
    });
    expect(res.status).toBe(200);
    const { content, metadata } = (await res.json()) as { content: string; metadata: { outcome: string } };
    expect(metadata.outcome).toBe("partial");
    expect(content).toMatch(/^I reached the limit of 10 reasoning steps before finishing, so this answer is partial/);
    // Ten model turns asked for ten queries; the tenth was never run (the cap), so nine results came back.
    for (const [alias, name] of ASKED.slice(0, 9)) {
      expect(content).toContain(`"Tell me about ${alias}"`);
      expect(content).toContain(`${name} (`);
    }
    expect(content).toContain('Not looked up before the limit: "Tell me about Union Assurance".');
    // The sample-data notice is said once, at the end, not after each result.
    expect(content.split(SAMPLE_DATA_NOTICE)).toHaveLength(2);
    expect(content.trimEnd().endsWith(`(${SAMPLE_DATA_NOTICE})`)).toBe(true);
  });
});
