/**
 * A graph that puts every Trellis-shaped value the Agent Server API must translate on its way out:
 * an assistant message with tool calls and token usage (streamed as chunks too), a tool result, a
 * custom event holding a message, and a human-in-the-loop pause inside a subgraph whose value carries
 * both LangChain spellings, as `hitlRequest` of `@trellis/agents` builds it (`actionRequests` and
 * `action_requests`, `reviewConfigs` and `review_configs`) with a message among its arguments.
 */
import { channel, END, emitMessageChunk, interrupt, type NodeContext, START, StateGraph } from "@trellis/core";

interface Msg {
  id: string;
  role: "user" | "assistant" | "tool" | "system";
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number; cachedInputTokens?: number };
}

const schema = { messages: channel.messages<Msg>(), decision: channel.value<unknown>(null) };

function reviewGraph() {
  return new StateGraph(schema, { name: "review" })
    .addNode("ask", (s) => {
      const requests = [{ name: "send", args: { message: s.messages.at(-1) }, description: "Send this reply?" }];
      const decision = interrupt({
        actionRequests: requests,
        reviewConfigs: [{ actionName: "send", allowedDecisions: ["approve", "reject"] }],
        action_requests: requests,
        review_configs: [{ action_name: "send", allowed_decisions: ["approve", "reject"] }],
      });
      return { decision };
    })
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile();
}

/** agent (a tool call with usage) → tools → review (a subgraph that pauses) → final */
export function wireGraph() {
  return new StateGraph(schema, { name: "wire" })
    .addNode("agent", (_s, ctx: NodeContext) => {
      const call = { id: "call-1", name: "lookup", args: { q: "weather" } };
      const usage = { inputTokens: 12, outputTokens: 5, totalTokens: 17, cachedInputTokens: 4 };
      const message: Msg = { id: "ai-1", role: "assistant", content: "Looking", toolCalls: [call], usage };
      emitMessageChunk({ type: "text", messageId: message.id, text: "Looking" });
      emitMessageChunk({ type: "message", message });
      ctx.emit({ note: "drafted", message });
      return { messages: [message] };
    })
    .addNode("tools", () => ({
      messages: [{ id: "tool-1", role: "tool" as const, content: "sunny", toolCallId: "call-1" }],
    }))
    .addNode("review", reviewGraph())
    .addNode("final", () => ({ messages: [{ id: "ai-2", role: "assistant" as const, content: "It is sunny." }] }))
    .addEdge(START, "agent")
    .addEdge("agent", "tools")
    .addEdge("tools", "review")
    .addEdge("review", "final")
    .addEdge("final", END)
    .compile();
}
