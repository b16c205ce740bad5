import { systemMessage, userMessage } from "@trellis/models";
import { beforeAll, describe, expect, it } from "vitest";
import type { CompanyDirectory } from "../companies/company-graph.js";
import { sampleCompanyGraph } from "../test/sample-company-graph.js";
import { parseTranscript } from "../transcript/transcript-format.js";
import { REFERENCE_MESSAGE, systemPrompt } from "./agent-state.js";
import { createOfflineMarketModel, planFromTurns } from "./offline-model.js";
import { QUERY_TOOL_NAME } from "./query-tool.js";

describe("offline market model", () => {
  let directory: CompanyDirectory;
  beforeAll(async () => {
    directory = await (await sampleCompanyGraph()).companies.directory();
  });
  const plan = (transcript: string) => planFromTurns(parseTranscript(transcript), directory);

  it("asks the database the latest question as it is", () => {
    expect(plan("Human: What are the top 5 companies by market cap?")).toMatchObject({
      queries: ["What are the top 5 companies by market cap?"],
      resolved: [],
    });
  });

  it("resolves a pronoun to the company of the latest earlier human turn that named one", () => {
    const transcript = [
      "Human: Tell me about John Keells",
      "Agent: John Keells Holdings PLC (JKH) — Capital Goods. Direct holdings: Ceylon Cold Stores PLC (81.3%)…",
      "Human: What companies do they own?",
    ].join("\n");
    expect(plan(transcript)).toMatchObject({
      queries: ["What companies do John Keells Holdings PLC own?"],
      resolved: ["John Keells Holdings PLC"],
    });
  });

  it("falls back to the first company the agent named, and handles possessives", () => {
    const transcript =
      "Human: Which company is the largest?\nAgent: 1. John Keells Holdings PLC (JKH)…\nHuman: What is its P/E?";
    expect(plan(transcript).queries).toEqual(["What is John Keells Holdings PLC's P/E?"]);
  });

  it("asks once per referent when a pronoun stands for several companies", () => {
    const transcript = "Human: Tell me about Hayleys and LOLC\nAgent: …\nHuman: Who owns them?";
    expect(plan(transcript).queries).toEqual(["Who owns Hayleys PLC?", "Who owns LOLC Holdings PLC?"]);
  });

  it("splits a comparison into one query per sector or company", () => {
    expect(plan("Human: Compare the financial metrics of banks vs technology companies")).toMatchObject({
      queries: ["Financial metrics of the Banks sector", "Financial metrics of the Technology sector"],
      labels: ["Banks", "Technology"],
    });
    expect(plan("Human: Compare what JKH and Hayleys own").queries).toEqual([
      "What companies does John Keells Holdings PLC own?",
      "What companies does Hayleys PLC own?",
    ]);
  });

  it("answers greetings and empty questions without the database", () => {
    expect(plan("Human: hello!").direct).toMatch(/^Hello! I can answer questions about listed companies/);
    expect(plan("").direct).toMatch(/^I did not receive a question/);
  });

  it("calls the tool, one query per turn, then quotes the results side by side", async () => {
    const model = createOfflineMarketModel(directory);
    const tools = [{ name: QUERY_TOOL_NAME, description: "db", parameters: { type: "object", properties: {} } }];
    const base = [
      systemMessage(systemPrompt("Human: Compare the financial metrics of banks vs technology companies")),
      userMessage(REFERENCE_MESSAGE),
    ];
    const first = await model.invoke(base, { tools });
    expect(first.toolCalls?.[0]).toMatchObject({
      name: QUERY_TOOL_NAME,
      args: { query: "Financial metrics of the Banks sector" },
    });
    const r1 = { role: "tool", toolCallId: first.toolCalls?.[0]?.id, content: "Banks figures\n\n(SAMPLE DATA: x.)" };
    const second = await model.invoke([...base, first, r1], { tools });
    expect(second.toolCalls?.[0]?.args).toEqual({ query: "Financial metrics of the Technology sector" });
    const r2 = { role: "tool", toolCallId: second.toolCalls?.[0]?.id, content: "Tech figures\n\n(SAMPLE DATA: x.)" };
    const answer = await model.invoke([...base, first, r1, second, r2], { tools });
    expect(answer.toolCalls).toBeUndefined();
    expect(answer.content).toBe(
      "Comparison of Banks vs Technology, from 2 queries to the company database:\n\n" +
        "### Banks\nBanks figures\n\n### Technology\nTech figures\n\n(SAMPLE DATA: x.)",
    );
    expect(model.calls.map((c) => c.rule)).toEqual(["query-database", "query-database", "answer"]);
  });
});
