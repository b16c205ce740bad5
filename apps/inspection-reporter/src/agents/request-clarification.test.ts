import { createToolNode } from "@trellis/agents";
import { Command, channel, END, MemorySaver, START, StateGraph } from "@trellis/core";
import { assistantMessage, type Message, type Tool, tool } from "@trellis/models";
import { readPause } from "@trellis/protocol";
import { describe, expect, it } from "vitest";
import { AGENT_IDS } from "./agent-definitions.js";
import { getToolsForAgent } from "./agent-tools.js";
import {
  clarificationRequest,
  formatQuestions,
  isClarificationRequest,
  readClarificationReply,
  requestClarification,
} from "./request-clarification.js";
import { UserSettingsStore } from "./user-settings.js";

const questions = [
  { question: "Wat is het adres van de inspectielocatie?", field: "address", importance: "critical" },
  { question: "Was de hygiëne in orde?", field: "hygiene_ok", importance: "high", options: ["ja", "nee"] },
];

/** A graph whose only node runs the tool calls of a scripted assistant message. */
function toolGraph() {
  return new StateGraph({ messages: channel.messages<Message>() })
    .addNode("tools", createToolNode([requestClarification as unknown as Tool]))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer: new MemorySaver() });
}

describe("request_clarification (seed, Phase 1)", () => {
  it("formats the questions as numbered lines", () => {
    expect(formatQuestions(questions)).toBe("1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?");
  });

  it("pauses with { type, questions, display_text } and returns the user's response as its result", async () => {
    const graph = toolGraph();
    const config = { threadId: "clarify" };
    const call = assistantMessage("", {
      toolCalls: [{ id: "call-1", name: "request_clarification", args: { questions } }],
    });
    const paused = await graph.invoke({ messages: [call] }, config);
    const value = paused.__interrupt__?.[0]?.value;
    expect(value).toMatchObject({
      type: "clarification_request",
      questions,
      display_text: "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?",
      // also LangChain's HITL request (issue 36), so agent-chat-ui can answer it
      action_requests: [{ name: "request_clarification", args: { answer: "", address: "", hygiene_ok: "" } }],
      review_configs: [{ action_name: "request_clarification", allowed_decisions: ["edit", "reject"] }],
    });
    // the studio and the CLI (which read the declared kind first) still ask for a typed reply
    expect(readPause(value)).toMatchObject({ kind: "text" });
    expect(isClarificationRequest(value)).toBe(true);
    const done = await graph.invoke(new Command({ resume: "hoofdstraat 2, ja" }), config);
    expect(done.messages.at(-1)).toMatchObject({
      role: "tool",
      name: "request_clarification",
      toolCallId: "call-1",
      content: "hoofdstraat 2, ja",
    });
  });

  it("rejects a call without questions as an error message for the model", async () => {
    const graph = toolGraph();
    const call = assistantMessage("", {
      toolCalls: [{ id: "c", name: "request_clarification", args: { questions: [] } }],
    });
    const out = await graph.invoke({ messages: [call] }, { threadId: "empty" });
    expect(out.__interrupt__).toBeUndefined();
    expect(out.messages.at(-1)).toMatchObject({ role: "tool", status: "error" });
  });

  it("belongs to the reporting agent only; the general agent has the handoffs and update_user_settings", () => {
    const fake = (name: string) =>
      tool({ name, description: name, parameters: { type: "object", properties: {} }, fn: () => "" });
    const mcpTools = {
      inspection: [fake("verify_inspection_data")],
      regulation: [fake("search_regulations")],
      history: [fake("get_inspection_history")],
    };
    const names = Object.fromEntries(
      AGENT_IDS.map((id) => [
        id,
        getToolsForAgent(id, { mcpTools, settings: new UserSettingsStore() }).map((t) => t.name),
      ]),
    );
    expect(names).toEqual({
      "general-agent": [
        "transfer_to_history",
        "transfer_to_regulation",
        "transfer_to_reporting",
        "update_user_settings",
      ],
      "history-agent": ["transfer_to_general", "get_inspection_history"],
      "regulation-agent": ["transfer_to_general", "search_regulations"],
      "reporting-agent": ["request_clarification", "transfer_to_general", "verify_inspection_data"],
    });
  });

  it("offers approve only when every question confirms a noted value, and approve then confirms them", () => {
    const confirm = [
      {
        question: 'Wat is het adres van de inspectielocatie? (Ik heb "Zwolle" genoteerd; klopt dat?)',
        field: "address",
      },
    ];
    expect(clarificationRequest(confirm).review_configs[0]?.allowed_decisions).toEqual(["approve", "edit", "reject"]);
    expect(clarificationRequest(questions).review_configs[0]?.allowed_decisions).toEqual(["edit", "reject"]);
    expect(readClarificationReply({ decisions: [{ type: "approve" }] }, confirm)).toEqual({
      reply: '{"address":"ja"}',
    });
    expect(readClarificationReply({ decisions: [{ type: "approve" }] }, questions)).toMatchObject({
      again: expect.stringContaining("is not one of edit, reject"),
    });
  });
});
