import { END, MemorySaver } from "@trellis/core";
import { assistantMessage, type ChatModel, RuleChatModel, ScriptedChatModel, userMessage } from "@trellis/models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompanyGraph } from "../companies/company-graph.js";
import type { SqlDatabase } from "../database/sql-database.js";
import { recordingLogger } from "../logger.js";
import { buildSupervisorGraph } from "../supervisor/supervisor-graph.js";
import { sampleCompanyGraph } from "../test/sample-company-graph.js";
import { REFERENCE_MESSAGE } from "./agent-state.js";
import { buildConversationGraph, shouldContinue } from "./conversation-graph.js";
import { createOfflineMarketModel } from "./offline-model.js";
import { createQueryGraphDatabaseTool, QUERY_TOOL_NAME } from "./query-tool.js";
import { runAgentWithTranscript } from "./run-agent.js";

describe("run_agent_with_transcript (pure: no Redis)", () => {
  let db: SqlDatabase;
  let companies: CompanyGraph;
  beforeAll(async () => ({ db, companies } = await sampleCompanyGraph()));
  afterAll(() => db.close());

  const graphWith = (model: ChatModel | "offline", logger = recordingLogger()) =>
    (async () => {
      const chosen = model === "offline" ? createOfflineMarketModel(await companies.directory()) : model;
      const queryTool = createQueryGraphDatabaseTool({ supervisor: buildSupervisorGraph(companies), logger });
      return buildConversationGraph({ model: chosen, tools: [queryTool], logger });
    })();

  it("answers the seed's pure-agent test: the market cap of Commercial Bank", async () => {
    const reply = await runAgentWithTranscript("Human: What is the market cap of Commercial Bank?", {
      graph: await graphWith("offline"),
    });
    expect(reply.content).toContain("Commercial Bank");
    expect(reply.content).toContain("Market capitalisation: LKR 192,000 mn (#3 of 22 listed)");
    expect(reply).toMatchObject({ outcome: "answered", iterations: 2 });
    expect(reply.toolCalls).toEqual([
      { name: QUERY_TOOL_NAME, args: { query: "What is the market cap of Commercial Bank?" } },
    ]);
  });

  it("puts the latest message only in the transcript; the messages start with the reference message", async () => {
    const model = new ScriptedChatModel([
      {
        content: "Let me look.",
        toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: "Top 5 companies by market cap" } }],
      },
      "The top five are JKH, CTC, COMB, LOLC and HNB.",
    ]);
    const transcript = "Human: Hi\nAgent: Hello!\nHuman: What are the top 5 companies by market cap?";
    const reply = await runAgentWithTranscript(transcript, { graph: await graphWith(model) });
    expect(reply.content).toBe("The top five are JKH, CTC, COMB, LOLC and HNB.");
    const [first, second] = model.calls;
    expect(first?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first?.messages[0]?.content).toContain(`CONVERSATION HISTORY:\n${transcript}\n\nPlease analyze`);
    expect(first?.messages[1]?.content).toBe(REFERENCE_MESSAGE);
    const everything = JSON.stringify(second?.messages);
    expect(everything.split("What are the top 5 companies by market cap?")).toHaveLength(2); // once: in the transcript
    expect(second?.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second?.messages[3]?.content).toContain("1. John Keells Holdings PLC");
    expect(first?.tools?.map((t) => t.name)).toEqual([QUERY_TOOL_NAME]);
  });

  it("stops at max_iterations with a partial answer that says so", async () => {
    let n = 0;
    const relentless = new RuleChatModel({
      rules: [
        {
          name: "always-another-query",
          when: () => true,
          reply: () => ({ toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: `Tell me about HNB (${++n})` } }] }),
        },
      ],
    });
    const reply = await runAgentWithTranscript("Human: Tell me everything about every bank", {
      graph: await graphWith(relentless),
    });
    expect(reply.outcome).toBe("partial");
    expect(reply.iterations).toBe(10);
    expect(reply.toolCalls).toHaveLength(10);
    expect(reply.messages.filter((m) => m.role === "tool")).toHaveLength(9); // the 10th call is not run
    expect(reply.content).toMatch(
      /^I reached the limit of 10 reasoning steps before finishing, so this answer is partial/,
    );
    expect(reply.content).toContain("Hatton National Bank PLC (HNB)");
    expect(relentless.calls).toHaveLength(10);

    const capped = await runAgentWithTranscript("Human: again", {
      graph: await graphWith(relentless),
      maxIterations: 3,
    });
    expect(capped).toMatchObject({ outcome: "partial", iterations: 3 });
  });

  it("apologises with the error when the model fails", async () => {
    const logger = recordingLogger();
    const failing = new ScriptedChatModel([new Error("connection reset by the provider")]);
    const reply = await runAgentWithTranscript("Human: Top 5 companies?", { graph: await graphWith(failing, logger) });
    expect(reply.outcome).toBe("llm_error");
    expect(reply.content).toBe(
      "I'm sorry, I couldn't generate a response because the language model failed: connection reset by the provider",
    );
    expect(logger.lines).toEqual([
      { level: "error", message: "The model (scripted/scripted) failed: connection reset by the provider" },
    ]);
  });

  it("turns a supervisor failure into a helpful message instead of failing the run", async () => {
    const logger = recordingLogger();
    const broken = await sampleCompanyGraph();
    const model = createOfflineMarketModel(await broken.companies.directory());
    await broken.db.close();
    const queryTool = createQueryGraphDatabaseTool({ supervisor: buildSupervisorGraph(broken.companies), logger });
    const graph = buildConversationGraph({ model, tools: [queryTool], logger });
    const reply = await runAgentWithTranscript("Human: What are the top 5 companies by market cap?", { graph });
    expect(reply.outcome).toBe("answered");
    expect(reply.content).toContain(
      'The company database could not answer "What are the top 5 companies by market cap?" right now',
    );
    expect(reply.content).toContain("temporarily unavailable");
    expect(logger.lines[0]?.message).toMatch(/^query_graph_database failed for "What are the top 5/);
  });

  it("runs parallel tool calls, each in its own supervisor subgraph, also on a checkpointed thread", async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: QUERY_TOOL_NAME, args: { query: "Financial metrics of banks" } },
          { name: QUERY_TOOL_NAME, args: { query: "Financial metrics of technology companies" } },
        ],
      },
      (messages) => `Compared ${messages.filter((m) => m.role === "tool").length} sectors.`,
    ]);
    const graph = (await graphWith(model)).withCheckpointer(new MemorySaver());
    const result = await graph.invoke(
      { messages: [userMessage("Compare banks and tech")] },
      { threadId: "parallel", recursionLimit: 25 },
    );
    const tools = result.messages.filter((m) => m.role === "tool").map((m) => m.content.split("\n")[0]);
    expect(tools).toEqual([
      "Financial metrics of Banks, 4 listed companies, FY2024:",
      "Financial metrics of Technology (covers Software & Services, Telecommunication Services), 3 listed companies, FY2024:",
    ]);
    expect(result.messages.at(-1)?.content).toBe("Compared 2 sectors.");
  });

  it("returns the last assistant message without tool calls", async () => {
    const model = new ScriptedChatModel([
      { content: "Checking the database first.", toolCalls: [{ name: QUERY_TOOL_NAME, args: { query: "HNB" } }] },
      "HNB is a bank.",
    ]);
    const reply = await runAgentWithTranscript("Human: What is HNB?", { graph: await graphWith(model) });
    expect(reply.content).toBe("HNB is a bank.");
  });

  it("also runs on a thread from messages alone, as the Trellis server sends them", async () => {
    const graph = (await graphWith("offline")).withCheckpointer(new MemorySaver());
    const config = { threadId: "server-thread" };
    await graph.invoke({ messages: [userMessage("Tell me about John Keells")] }, config);
    const second = await graph.invoke({ messages: [userMessage("What companies do they own?")] }, config);
    const answer = second.messages.at(-1);
    expect(answer?.content).toContain("I took your question to be about John Keells Holdings PLC");
    expect(answer?.content).toContain("JayKay Marketing Services (Pvt) Ltd");
    expect(second.iteration_count).toBe(2);
  });

  it("never answers a thread's next question from an earlier run's transcript", async () => {
    const graph = (await graphWith("offline")).withCheckpointer(new MemorySaver());
    const config = { threadId: "stale" };
    // the seed's shape: the reference message and a transcript
    await graph.invoke(
      { messages: [userMessage(REFERENCE_MESSAGE)], conversation_transcript: "Human: Tell me about John Keells" },
      config,
    );
    // then a client that sends only the question, as the Agent Server API's clients do
    const next = await graph.invoke({ messages: [userMessage("Who owns E-Channelling?")] }, config);
    const answer = next.messages.at(-1)?.content ?? "";
    expect(answer).toContain("Owners of E-Channelling PLC:");
    expect(answer).not.toContain("John Keells");
    expect(next.messages.filter((m) => m.role === "assistant" && !m.toolCalls?.length)).toHaveLength(2);
  });

  it("a turn that shows the model what an earlier one did adds its messages instead of replacing them", async () => {
    // a one-message transcript: the same question twice gives the offline model the same input
    const chosen = createOfflineMarketModel(await companies.directory());
    const queryTool = createQueryGraphDatabaseTool({ supervisor: buildSupervisorGraph(companies) });
    const graph = buildConversationGraph({
      model: chosen,
      tools: [queryTool],
      transcriptLimits: { maxMessages: 1 },
    }).withCheckpointer(new MemorySaver());
    const config = { threadId: "same-question", recursionLimit: 25 };
    const ask = () => graph.invoke({ messages: [userMessage("Who owns E-Channelling?")] }, config);
    const first = await ask();
    await ask(); // from here on the transcript is "(omitted)" and the question: the same every turn
    const third = await ask();
    expect(third.messages).toHaveLength(3 * first.messages.length);
    expect(new Set(third.messages.map((m) => m.id)).size).toBe(third.messages.length);
    expect(third.messages.at(-1)?.content).toContain("Owners of E-Channelling PLC:");
    expect(third.iteration_count).toBe(2);
  });

  it("routes like the seed's should_continue", () => {
    const call = assistantMessage("", { toolCalls: [{ id: "c1", name: QUERY_TOOL_NAME, args: {} }] });
    expect(shouldContinue({ messages: [call], iteration_count: 1, max_iterations: 10 })).toBe("tools");
    expect(shouldContinue({ messages: [call], iteration_count: 10, max_iterations: 10 })).toBe("partial_answer");
    expect(shouldContinue({ messages: [assistantMessage("done")], iteration_count: 10, max_iterations: 10 })).toBe(END);
  });

  it("draws main_agent ⇄ tools", async () => {
    const mermaid = (await graphWith("offline")).drawMermaid();
    expect(mermaid).toContain("main_agent --> |tools| tools");
    expect(mermaid).toContain("main_agent --> |partial_answer| partial_answer");
    expect(mermaid).toContain("tools --> main_agent");
  });
});
