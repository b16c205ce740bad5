/**
 * Seed 004 (inspection reporter, "sticky" reporting agent), ported with stub agents — the seed's own
 * orchestrator (`process_message` resumes a paused thread with `Command({ resume })`) running on Trellis.
 * The app's real graph is tested in `./scenarios.test.ts`; this file keeps the seed's shape:
 *
 *   START ─route_from_start(current_agent)─┬─ general-agent ─(transfer_to_* handoff: Command goto)─┐
 *                                          ├─ regulation-agent → END                            │
 *                                          ├─ history-agent → END                               │
 *                                          └─ reporting-agent ⇄ reporting-tools ◄───────────────┘
 *
 * `reporting-tools` runs the `request_clarification` tool, which calls the free `interrupt()`; the
 * orchestrator's process_message resumes a paused thread with `new Command({ resume: userText })`.
 */

import {
  Command,
  type CompiledGraph,
  channel,
  END,
  interrupt,
  MemorySaver,
  type MessageLike,
  START,
  StateGraph,
  type StateOf,
} from "@trellis/core";
import { describe, expect, it } from "vitest";

interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}
interface Message extends MessageLike {
  role?: string;
  content?: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
}
interface Question {
  question: string;
  field: string;
  importance: string;
}

const schema = {
  messages: channel.messages<Message>(),
  session_id: channel.value(""),
  current_agent: channel.value("general-agent"),
  pending_approval: channel.value<string | null>(null),
  metadata: channel.value<Record<string, unknown>>({}),
  report: channel.value<string | null>(null),
};
type AgentState = StateOf<typeof schema>;

const AGENTS = ["general-agent", "regulation-agent", "history-agent", "reporting-agent"] as const;

/** The tool that wraps interrupt(), as in the seed's tools.py. */
function requestClarification(questions: Question[]): string {
  const displayText = questions.map((q, i) => `${i + 1}. ${q.question}`).join("\n");
  return interrupt<string>({ type: "clarification_request", questions, display_text: displayText });
}

function buildInspectionGraph(saver: MemorySaver) {
  const calls = { mcpVerify: 0, general: 0, regulation: 0, history: 0, reporting: 0, tools: 0 };
  let toolIds = 0;
  const toolCall = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `call_${++toolIds}`, name, args });
  const lastUser = (s: AgentState) => s.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";

  const graph = new StateGraph(schema)
    .addNode(
      "general-agent",
      (state) => {
        calls.general++;
        const text = lastUser(state).toLowerCase();
        const target =
          text.includes("rapport") || text.includes("report")
            ? "reporting-agent"
            : text.includes("regel") || text.includes("regulation")
              ? "regulation-agent"
              : text.includes("history")
                ? "history-agent"
                : undefined;
        if (!target) return { messages: [{ role: "assistant", content: "Hoe kan ik helpen?" }] };
        // transfer_to_* handoff tools: move to the specialist and make it sticky.
        return new Command({ goto: target, update: { current_agent: target } });
      },
      { ends: ["reporting-agent", "regulation-agent", "history-agent"] },
    )
    .addNode("regulation-agent", (state) => {
      calls.regulation++;
      return { messages: [{ role: "assistant", content: `Regulation answer to: ${lastUser(state)}` }] };
    })
    .addNode("history-agent", () => {
      calls.history++;
      return { messages: [{ role: "assistant", content: "No earlier inspections found." }] };
    })
    .addNode("reporting-agent", (state) => {
      calls.reporting++;
      const toolResults = state.messages.filter((m) => m.role === "tool");
      const verification = toolResults.filter((m) => m.name === "verify_inspection_data").at(-1);
      const answers = toolResults.filter((m) => m.name === "request_clarification");
      if (!verification) {
        return { messages: [{ role: "assistant", content: "", toolCalls: [toolCall("verify_inspection_data", {})] }] };
      }
      const questions = JSON.parse(verification.content ?? "[]") as Question[];
      const answered = answers.map((m) => m.content ?? "").join(", ");
      // The inspector must confirm the hygiene ("ja"/"nee"); without it the agent asks again.
      const complete = /\b(ja|nee)\b/.test(answered);
      if (questions.length > 0 && !complete) {
        const open = answers.length === 0 ? questions : questions.filter((q) => q.field === "hygiene");
        return {
          messages: [
            { role: "assistant", content: "", toolCalls: [toolCall("request_clarification", { questions: open })] },
          ],
        };
      }
      return {
        report: `Report (${answered})`,
        messages: [{ role: "assistant", content: `Rapport klaar: ${answered}` }],
      };
    })
    .addNode("reporting-tools", (state) => {
      calls.tools++;
      const last = state.messages.at(-1);
      const results: Message[] = [];
      for (const call of last?.toolCalls ?? []) {
        if (call.name === "verify_inspection_data") {
          calls.mcpVerify++;
          const questions: Question[] = [
            { question: "What is the address?", field: "address", importance: "high" },
            { question: "Was hygiene OK?", field: "hygiene", importance: "high" },
          ];
          results.push({ role: "tool", name: call.name, toolCallId: call.id, content: JSON.stringify(questions) });
        } else if (call.name === "request_clarification") {
          const response = requestClarification(call.args.questions as Question[]);
          results.push({ role: "tool", name: call.name, toolCallId: call.id, content: response });
        }
      }
      return { messages: results };
    })
    .addConditionalEdges(
      START,
      function routeFromStart(state: AgentState) {
        return (AGENTS as readonly string[]).includes(state.current_agent) ? state.current_agent : "general-agent";
      },
      [...AGENTS],
    )
    .addConditionalEdges(
      "reporting-agent",
      function toolsCondition(state: AgentState) {
        return state.messages.at(-1)?.toolCalls?.length ? "tools" : "end";
      },
      { tools: "reporting-tools", end: END },
    )
    .addEdge("reporting-tools", "reporting-agent")
    .addEdge("regulation-agent", END)
    .addEdge("history-agent", END)
    .compile({ checkpointer: saver, name: "agora" });
  return { graph, calls };
}

/** The seed's orchestrator.process_message: resume a paused thread, else start a run with the message. */
async function processMessage(graph: CompiledGraph<typeof schema>, threadId: string, userContent: string) {
  const config = { configurable: { thread_id: threadId } };
  const existing = await graph.getState(config);
  const currentAgent = existing.values.current_agent || "general-agent";
  const graphInput =
    existing.next.length > 0
      ? new Command({ resume: userContent })
      : {
          messages: [{ type: "human", content: userContent }],
          session_id: threadId,
          current_agent: currentAgent,
          pending_approval: null,
          metadata: { channel: "web" },
        };
  const result = await graph.invoke(graphInput, config);
  const state = await graph.getState(config);
  // As the seed reads it: the interrupt value is in the tasks.
  const interruptValue = state.tasks.find((t) => t.interrupts.length > 0)?.interrupts[0]?.value as
    | { type: string; questions: Question[]; display_text: string }
    | undefined;
  return { result, state, interruptValue };
}

describe("seed 004: clarification with interrupt() and Command({ resume })", () => {
  it("scenario 1: the reporting agent asks, the next user message resumes it at the interrupt", async () => {
    const { graph, calls } = buildInspectionGraph(new MemorySaver());
    const first = await processMessage(graph, "s1", "Maak een inspectierapport voor Restaurant Bella Rosa");
    expect(first.state.next).toEqual(["reporting-tools"]);
    expect(first.interruptValue).toEqual({
      type: "clarification_request",
      questions: [
        { question: "What is the address?", field: "address", importance: "high" },
        { question: "Was hygiene OK?", field: "hygiene", importance: "high" },
      ],
      display_text: "1. What is the address?\n2. Was hygiene OK?",
    });
    expect(first.result.__interrupt__).toHaveLength(1);
    expect(first.result.__interrupt__?.[0]?.value).toEqual(first.interruptValue);
    expect(first.result.__interrupt__?.[0]?.id).toMatch(/^[0-9a-f]{32}$/);
    expect(first.result.current_agent).toBe("reporting-agent");
    expect(calls).toMatchObject({ general: 1, reporting: 2, mcpVerify: 1 });

    const second = await processMessage(graph, "s1", "hoofdstraat 2, ja, nee");
    expect(second.state.next).toEqual([]);
    expect(second.result.__interrupt__).toBeUndefined();
    expect(second.result.report).toBe("Report (hoofdstraat 2, ja, nee)");
    // Deterministic: no routing through the general agent, and the MCP call was not repeated.
    expect(calls).toMatchObject({ general: 1, reporting: 3, mcpVerify: 1 });
    const tool = second.result.messages.find((m) => m.name === "request_clarification");
    expect(tool?.content).toBe("hoofdstraat 2, ja, nee");
    expect(tool?.toolCallId).toBe(
      second.result.messages.find((m) => m.toolCalls?.[0]?.name === "request_clarification")?.toolCalls?.[0]?.id,
    );
  });

  it("scenario 2: several clarification rounds each resume at the new interrupt", async () => {
    const { graph, calls } = buildInspectionGraph(new MemorySaver());
    const first = await processMessage(graph, "s2", "Create a report for Bella Rosa");
    const firstId = first.result.__interrupt__?.[0]?.id;
    const second = await processMessage(graph, "s2", "hoofdstraat 2");
    expect(second.state.next).toEqual(["reporting-tools"]);
    expect(second.interruptValue?.questions.map((q) => q.field)).toEqual(["hygiene"]);
    const secondId = second.result.__interrupt__?.[0]?.id;
    expect(secondId).toBeDefined();
    expect(secondId).not.toBe(firstId);
    const third = await processMessage(graph, "s2", "ja");
    expect(third.state.next).toEqual([]);
    expect(third.result.report).toBe("Report (hoofdstraat 2, ja)");
    expect(calls).toMatchObject({ general: 1, mcpVerify: 1 });
    expect(calls.tools).toBe(5); // verify, clarify (paused), clarify (resumed), clarify (paused), clarify (resumed)
  });

  it("resuming with a map keyed by the interrupt id works the same", async () => {
    const { graph } = buildInspectionGraph(new MemorySaver());
    const config = { threadId: "s-map" };
    const paused = await graph.invoke({ messages: [{ role: "human", content: "report please" }] }, config);
    const id = paused.__interrupt__?.[0]?.id as string;
    const done = await graph.invoke(new Command({ resume: { [id]: "straat 1, nee" } }), config);
    expect(done.report).toBe("Report (straat 1, nee)");
  });

  it("scenario 3: a regulation question never interrupts, and the follow-up stays with that agent", async () => {
    const { graph, calls } = buildInspectionGraph(new MemorySaver());
    const first = await processMessage(graph, "s3", "Welke regels gelden voor koeling?");
    expect(first.state.next).toEqual([]);
    expect(first.result.__interrupt__).toBeUndefined();
    expect(first.result.current_agent).toBe("regulation-agent");
    const followUp = await processMessage(graph, "s3", "And for freezers?");
    expect(followUp.result.messages.at(-1)?.content).toBe("Regulation answer to: And for freezers?");
    expect(calls).toMatchObject({ general: 1, regulation: 2, reporting: 0 });
  });

  it("the history handoff and a plain general answer both end the run", async () => {
    const { graph, calls } = buildInspectionGraph(new MemorySaver());
    const history = await processMessage(graph, "s4", "show the history of this venue");
    expect(history.result.messages.at(-1)?.content).toBe("No earlier inspections found.");
    expect(history.result.current_agent).toBe("history-agent");
    const general = await processMessage(graph, "s5", "hallo");
    expect(general.result.messages.at(-1)?.content).toBe("Hoe kan ik helpen?");
    expect(general.result.current_agent).toBe("general-agent");
    expect(calls).toMatchObject({ general: 2, history: 1 });
  });

  it("a new report after a finished one starts a fresh clarification on the sticky agent", async () => {
    const { graph, calls } = buildInspectionGraph(new MemorySaver());
    await processMessage(graph, "s6", "report for Bella Rosa");
    await processMessage(graph, "s6", "straat 3, ja");
    // current_agent is still reporting-agent: route_from_start goes there directly.
    const again = await processMessage(graph, "s6", "another report");
    expect(again.state.next).toEqual([]);
    expect(calls.general).toBe(1);
    // The reporting agent reuses the verification and answers already in the thread.
    expect(again.result.messages.at(-1)?.content).toBe("Rapport klaar: straat 3, ja");
  });
});
