/**
 * Seed 000 (agentize.eu TWI writer), ported with stub nodes — the seed's own LangGraph pattern (breakpoints
 * answered by `updateState` + `invoke(null)`) running on Trellis. The app's real graph, with its model, PDF
 * and audit store, is tested in `../graph.test.ts`; this file keeps the seed's shape as it was written:
 *
 *   intent ├── generate_twi / edit_twi → process_input → generate → review (INTERRUPT)
 *          ├── question                               → generate → review (INTERRUPT)
 *          └── unknown                                              → clarify → END
 *   review ├── approved           → approve (INTERRUPT #2) → output → audit → END
 *          ├── revision_requested → revise → generate → review  (max 3 loops, then approve)
 *          └── rejected                                           → END
 *
 * Compiled with `interruptBefore: ["review", "approve"]`; the card actions resume the graph with
 * `updateState(config, update)` and `invoke(null, config)`, with LangGraph's config shape.
 */

import { channel, END, MemorySaver, START, StateGraph, type StateOf } from "@trellis/core";
import { describe, expect, it } from "vitest";

const schema = {
  user_id: channel.value(""),
  tenant_id: channel.value(""),
  conversation_id: channel.value(""),
  channel: channel.value<"msteams" | "telegram">("msteams"),
  message: channel.value(""),
  intent: channel.value<string | null>(null),
  processed_input: channel.value<Record<string, unknown> | null>(null),
  draft: channel.value<string | null>(null),
  draft_metadata: channel.value<{ model: string; generated_at: string; revision: number } | null>(null),
  revision_feedback: channel.value<string | null>(null),
  revision_count: channel.value(0),
  status: channel.value("processing"),
  pdf_url: channel.value<string | null>(null),
  pdf_blob_name: channel.value<string | null>(null),
  llm_model: channel.value<string | null>(null),
  llm_tokens_used: channel.value<number | null>(null),
  approval_timestamp: channel.value<string | null>(null),
  messages: channel.value<unknown[]>([]),
};
type AgentState = StateOf<typeof schema>;

const AI_LABEL = "⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.";

function classify(message: string): string {
  const m = message.toLowerCase();
  if (m.includes("edit")) return "edit_twi";
  if (m.includes("twi") || m.includes("instruction")) return "generate_twi";
  if (m.includes("?")) return "question";
  return "unknown";
}

function buildTwiGraph(saver: MemorySaver) {
  const trace: string[] = [];
  const audit: Array<Record<string, unknown>> = [];
  const ran = (name: string) => trace.push(name);

  const builder = new StateGraph(schema)
    // Seed pattern: "every node returns full state with updates".
    .addNode("intent", (state) => {
      ran("intent");
      return { ...state, intent: classify(state.message), llm_model: "stub-model" };
    })
    .addNode("process_input", (state) => {
      ran("process_input");
      return { ...state, processed_input: { task: state.message.trim(), intent: state.intent } };
    })
    .addNode("generate", (state) => {
      ran("generate");
      const revision = state.revision_count;
      const base = state.revision_feedback
        ? `${state.draft ?? ""}\n[revised: ${state.revision_feedback}]`
        : `TWI for: ${state.message}`;
      return {
        ...state,
        draft: base.startsWith(AI_LABEL) ? base : `${AI_LABEL}\n${base}`,
        draft_metadata: { model: "stub-model", generated_at: "2025-01-01T00:00:00Z", revision },
        status: "review_needed",
        llm_tokens_used: (state.llm_tokens_used ?? 0) + 100,
      };
    })
    // The review and approve nodes only mark the breakpoints: the card's answer arrives by updateState.
    .addNode("review", () => {
      ran("review");
    })
    .addNode("revise", (state) => {
      ran("revise");
      return { revision_count: state.revision_count + 1 };
    })
    .addNode("approve", () => {
      ran("approve");
    })
    .addNode("output", (state) => {
      ran("output");
      const blob = `${state.tenant_id}/${state.conversation_id}.pdf`;
      return { pdf_blob_name: blob, pdf_url: `https://blob.example/${blob}?sas=24h`, status: "completed" };
    })
    .addNode("audit", (state) => {
      ran("audit");
      audit.push({
        conversation_id: state.conversation_id,
        intent: state.intent,
        revision_count: state.revision_count,
        pdf_blob_name: state.pdf_blob_name,
        status: state.status,
        approval_timestamp: state.approval_timestamp,
      });
    })
    .addNode("clarify", (state) => {
      ran("clarify");
      return { ...state, status: "completed", messages: [...state.messages, "Please tell me what TWI to write."] };
    })
    .addEdge(START, "intent")
    .addConditionalEdges(
      "intent",
      function routeIntent(state: AgentState) {
        return state.intent ?? "unknown";
      },
      {
        generate_twi: "process_input",
        edit_twi: "process_input",
        question: "generate",
        unknown: "clarify",
      },
    )
    .addEdge("process_input", "generate")
    .addEdge("generate", "review")
    .addConditionalEdges(
      "review",
      function afterReview(state: AgentState) {
        return state.status;
      },
      {
        approved: "approve",
        revision_requested: "revise",
        rejected: END,
      },
    )
    .addConditionalEdges(
      "revise",
      function afterRevision(state: AgentState) {
        return state.revision_count >= 3 ? "approve" : "generate";
      },
      { approve: "approve", generate: "generate" },
    )
    .addEdge("approve", "output")
    .addEdge("output", "audit")
    .addEdge("audit", END)
    .addEdge("clarify", END);
  const graph = builder.compile({ checkpointer: saver, interruptBefore: ["review", "approve"] });
  return { graph, trace, audit };
}

function start(message: string, conversation: string): Partial<AgentState> {
  return {
    user_id: "u1",
    tenant_id: "acme",
    conversation_id: conversation,
    channel: "msteams",
    message,
    revision_count: 0,
    status: "processing",
  };
}

describe("seed 000: TWI writer", () => {
  it("generate_twi: intent → process_input → generate → review ⏸ → approve ⏸ → output → audit → END", async () => {
    const saver = new MemorySaver();
    const { graph, trace, audit } = buildTwiGraph(saver);
    const config = { configurable: { thread_id: "conv-1" } };

    const paused = await graph.invoke(start("Write a TWI for the lathe", "conv-1"), config);
    expect(trace).toEqual(["intent", "process_input", "generate"]);
    expect(paused.status).toBe("review_needed");
    expect(paused.draft?.startsWith(AI_LABEL)).toBe(true);
    expect(paused.__interrupt__).toBeUndefined(); // a static breakpoint has no interrupt values
    let snapshot = await graph.getState(config);
    expect(snapshot.next).toEqual(["review"]);

    await graph.updateState(config, { status: "approved" });
    const atApprove = await graph.invoke(null, config);
    expect(trace).toEqual(["intent", "process_input", "generate", "review"]);
    expect(atApprove.status).toBe("approved");
    snapshot = await graph.getState(config);
    expect(snapshot.next).toEqual(["approve"]);

    await graph.updateState(config, { status: "approved", approval_timestamp: "2025-01-02T10:00:00Z" });
    expect((await graph.getState(config)).next).toEqual(["approve"]);
    const done = await graph.invoke(null, config);
    expect(trace).toEqual(["intent", "process_input", "generate", "review", "approve", "output", "audit"]);
    expect(done.status).toBe("completed");
    expect(done.pdf_url).toBe("https://blob.example/acme/conv-1.pdf?sas=24h");
    expect(done.approval_timestamp).toBe("2025-01-02T10:00:00Z");
    expect(audit).toEqual([
      {
        conversation_id: "conv-1",
        intent: "generate_twi",
        revision_count: 0,
        pdf_blob_name: "acme/conv-1.pdf",
        status: "completed",
        approval_timestamp: "2025-01-02T10:00:00Z",
      },
    ]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("edit_twi also goes through process_input", async () => {
    const { graph, trace } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-edit" } };
    const paused = await graph.invoke(start("Please edit my TWI", "conv-edit"), config);
    expect(paused.intent).toBe("edit_twi");
    expect(paused.processed_input).toEqual({ task: "Please edit my TWI", intent: "edit_twi" });
    expect(trace).toEqual(["intent", "process_input", "generate"]);
    await graph.updateState(config, { status: "rejected" });
    const done = await graph.invoke(null, config);
    expect(done.status).toBe("rejected");
    expect(trace).toEqual(["intent", "process_input", "generate", "review"]);
  });

  it("question skips process_input and goes straight to generate", async () => {
    const { graph, trace } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-q" } };
    const paused = await graph.invoke(start("How long does a changeover take?", "conv-q"), config);
    expect(paused.intent).toBe("question");
    expect(paused.processed_input).toBeNull();
    expect(trace).toEqual(["intent", "generate"]);
    expect((await graph.getState(config)).next).toEqual(["review"]);
  });

  it("unknown goes to clarify and ends without pausing", async () => {
    const { graph, trace } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-u" } };
    const done = await graph.invoke(start("hello there", "conv-u"), config);
    expect(trace).toEqual(["intent", "clarify"]);
    expect(done.status).toBe("completed");
    expect(done.messages).toEqual(["Please tell me what TWI to write."]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("rejected at review ends the run without output or audit", async () => {
    const { graph, trace, audit } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-r" } };
    await graph.invoke(start("Write a TWI for welding", "conv-r"), config);
    await graph.updateState(config, { status: "rejected" });
    const done = await graph.invoke(null, config);
    expect(done.status).toBe("rejected");
    expect(done.pdf_url).toBeNull();
    expect(trace).toEqual(["intent", "process_input", "generate", "review"]);
    expect(audit).toEqual([]);
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("one revision: revise → generate → review ⏸ with the feedback, then approve", async () => {
    const { graph, trace } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-rev" } };
    await graph.invoke(start("Write a TWI for packing", "conv-rev"), config);
    await graph.updateState(config, { status: "revision_requested", revision_feedback: "shorter steps" });
    const again = await graph.invoke(null, config);
    expect(trace).toEqual(["intent", "process_input", "generate", "review", "revise", "generate"]);
    expect(again.revision_count).toBe(1);
    expect(again.draft).toContain("[revised: shorter steps]");
    expect(again.draft_metadata?.revision).toBe(1);
    expect((await graph.getState(config)).next).toEqual(["review"]);

    await graph.updateState(config, { status: "approved" });
    await graph.invoke(null, config);
    expect((await graph.getState(config)).next).toEqual(["approve"]);
    await graph.updateState(config, { status: "approved", approval_timestamp: "t" });
    const done = await graph.invoke(null, config);
    expect(done.status).toBe("completed");
    expect(trace.slice(-4)).toEqual(["review", "approve", "output", "audit"]);
  });

  it("after 3 revisions, after_revision forces approve (no 4th review)", async () => {
    const { graph, trace, audit } = buildTwiGraph(new MemorySaver());
    const config = { configurable: { thread_id: "conv-max" } };
    await graph.invoke(start("Write a TWI for painting", "conv-max"), config);
    for (let round = 1; round <= 3; round++) {
      expect((await graph.getState(config)).next).toEqual(["review"]);
      await graph.updateState(config, { status: "revision_requested", revision_feedback: `fix ${round}` });
      const state = await graph.invoke(null, config);
      expect(state.revision_count).toBe(round);
    }
    // The third revise routes to approve, not to generate → review.
    expect((await graph.getState(config)).next).toEqual(["approve"]);
    expect(trace.filter((n) => n === "generate")).toHaveLength(3);
    expect(trace.filter((n) => n === "review")).toHaveLength(3);
    expect(trace.at(-1)).toBe("revise");

    await graph.updateState(config, { status: "approved", approval_timestamp: "t3" });
    const done = await graph.invoke(null, config);
    expect(done.status).toBe("completed");
    expect(done.revision_count).toBe(3);
    expect(audit).toHaveLength(1);
    expect(audit[0]?.revision_count).toBe(3);
    expect(trace.slice(-4)).toEqual(["revise", "approve", "output", "audit"]);
  });

  it("the resume works with a fresh compiled graph on the same saver (another process)", async () => {
    const saver = new MemorySaver();
    const first = buildTwiGraph(saver);
    const config = { configurable: { thread_id: "conv-proc" } };
    await first.graph.invoke(start("Write a TWI for drilling", "conv-proc"), config);
    const second = buildTwiGraph(saver);
    await second.graph.updateState(config, { status: "approved" });
    await second.graph.invoke(null, config);
    await second.graph.updateState(config, { status: "approved", approval_timestamp: "t" });
    const done = await second.graph.invoke(null, config);
    expect(done.status).toBe("completed");
    expect(first.trace).toEqual(["intent", "process_input", "generate"]);
    expect(second.trace).toEqual(["review", "approve", "output", "audit"]);
  });
});
