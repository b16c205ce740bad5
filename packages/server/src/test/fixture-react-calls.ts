/**
 * A ReAct-style graph for the run timeline's calls, without a model package: `agent` makes a model call
 * (reported on the runtime's `trellis:model-usage` channel with its timing and finish reason, as a
 * `ChatModel` of `@trellis/models` reports it) and asks for a tool on its first turn; `tools` runs two
 * tool calls (reported on `trellis:tool-call` while a listener is there, as `runTool` does), one of
 * which fails; `agent` then answers. `research` runs the same agent as a subgraph.
 */
import { channel as diagnostics } from "node:diagnostics_channel";
import { channel, END, MODEL_USAGE_CHANNEL, START, StateGraph, TOOL_CALL_CHANNEL } from "@trellis/core";

const usage = diagnostics(MODEL_USAGE_CHANNEL);
const tools = diagnostics(TOOL_CALL_CHANNEL);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function modelCall(model: string, inputTokens: number, outputTokens: number, finishReason: string) {
  const startedAt = Date.now();
  await pause(5);
  usage.publish({
    provider: "acme",
    model,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    startedAt,
    durationMs: Date.now() - startedAt,
    finishReason,
  });
}

async function toolCall(tool: string, ok: boolean) {
  const startedAt = Date.now();
  await pause(3);
  if (tools.hasSubscribers) {
    tools.publish({
      tool,
      callId: `call-${tool}`,
      startedAt,
      durationMs: Date.now() - startedAt,
      status: ok ? "ok" : "error",
    });
  }
}

function reactGraph(name: string) {
  return new StateGraph({ turns: channel.value(0) }, { name })
    .addNode("agent", async (s) => {
      await modelCall("m-agent", 120 + s.turns, 30, s.turns === 0 ? "tool_calls" : "stop");
      return { turns: s.turns + 1 };
    })
    .addNode("tools", async () => {
      await Promise.all([toolCall("lookup", true), toolCall("broken", false)]);
      return {};
    })
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (s) => (s.turns === 1 ? "tools" : END), ["tools", END])
    .addEdge("tools", "agent")
    .compile();
}

/** agent (model call, asks for tools) → tools (lookup ok, broken fails) → agent (model call, answers) */
export function reactCallsGraph() {
  return reactGraph("react-calls");
}

/** `research` runs {@link reactCallsGraph}'s agent as a subgraph, then `summarise` makes one model call. */
export function nestedCallsGraph() {
  return new StateGraph({ turns: channel.value(0) }, { name: "nested-calls" })
    .addNode("research", reactGraph("research"))
    .addNode("summarise", async () => {
      await modelCall("m-summary", 50, 10, "stop");
      return {};
    })
    .addEdge(START, "research")
    .addEdge("research", "summarise")
    .addEdge("summarise", END)
    .compile();
}
