/**
 * A graph for the AG-UI frontend-tool and client-state tests, without `@trellis/agents`: its `agent`
 * node calls the first frontend tool its run's config declares (`configurable.frontend_tools`, where
 * the AG-UI endpoint puts `RunAgentInput.tools`) when the user's message is last, and answers with the
 * tool's result when a tool message is last. `units` is a typed key the client may set in its state.
 */
import { channel, END, type NodeContext, START, StateGraph, TrellisError } from "@trellis/core";

interface Msg {
  id: string;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
}

const schema = {
  messages: channel.messages<Msg>(),
  units: channel.value<string>("metric"),
  turns: channel.value<number>(0),
};

function agent(state: { messages: Msg[]; units: string; turns: number }, ctx: NodeContext) {
  const last = state.messages.at(-1);
  const declared = (ctx.config.configurable?.frontend_tools ?? []) as Array<{ name: string }>;
  const n = state.turns + 1;
  if (last?.role === "user" && declared[0]) {
    const call = { id: `call-${n}`, name: declared[0].name, args: { place: last.content } };
    return { turns: n, messages: [{ id: `ai-${n}`, role: "assistant" as const, content: "", toolCalls: [call] }] };
  }
  const text = last?.role === "tool" ? `The client said: ${last.content} (${state.units})` : `Hello (${state.units})`;
  return { turns: n, messages: [{ id: `ai-${n}`, role: "assistant" as const, content: text }] };
}

/** one agent turn; `units` must be "metric" or "imperial" */
export function frontendToolGraph() {
  return new StateGraph(schema, { name: "frontend-tools" })
    .addNode("agent", agent)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({
      validateState: (s) => {
        if (s.units !== "metric" && s.units !== "imperial") {
          throw new TrellisError(
            "INVALID_ARGUMENT",
            `units must be "metric" or "imperial" (got ${JSON.stringify(s.units)}).`,
          );
        }
      },
    });
}
