import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import type { Modules } from "./modules.js";

/** What a node can read of a message: its class, content (blocks as they are) and extra fields. */
function fieldsOf(m: BaseMessage): unknown {
  const r = m as unknown as Record<string, unknown>;
  return {
    type: m.getType(),
    id: m.id !== undefined && /^[0-9a-f-]{36}$/.test(m.id) ? "generated" : m.id,
    name: m.name,
    content: m.content,
    additional_kwargs: m.additional_kwargs,
    response_metadata: m.response_metadata,
    usage_metadata: r.usage_metadata,
    tool_calls: r.tool_calls,
    tool_call_id: r.tool_call_id,
    status: r.status,
    artifact: r.artifact,
  };
}

/**
 * Messages through the state and back: content blocks, tool calls, ids, names and extra fields of the
 * messages a node writes are what the next node reads; inputs in serialized and tuple forms become classes.
 */
export async function messageRoundTrip({ lg }: Modules): Promise<unknown> {
  const { Annotation, MessagesAnnotation, StateGraph, START, END } = lg;
  const State = Annotation.Root({ ...MessagesAnnotation.spec, seen: Annotation<unknown[]>() });
  const graph = new StateGraph(State)
    .addNode("write", () => ({
      messages: [
        new AIMessage({
          id: "ai-1",
          name: "writer",
          content: [
            { type: "text", text: "Look:" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ],
          tool_calls: [{ id: "call-9", name: "lookup", args: { q: "cats" }, type: "tool_call" }],
          additional_kwargs: { refusal: null, custom: { nested: [1, 2] } },
          response_metadata: { model_name: "scripted", finish_reason: "tool_calls" },
          usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
          // LangChain's field types leave usage_metadata out under exactOptionalPropertyTypes
        } as unknown as ConstructorParameters<typeof AIMessage>[0]),
        new ToolMessage({
          id: "tool-1",
          tool_call_id: "call-9",
          name: "lookup",
          content: "found",
          status: "error",
          artifact: { rows: 2 },
        }),
      ],
    }))
    .addNode("read", (state) => ({ seen: state.messages.map(fieldsOf) }))
    .addNode("prune", (state) => ({ messages: [new RemoveMessage({ id: state.messages[0]?.id as string })] }))
    .addEdge(START, "write")
    .addEdge("write", "read")
    .addEdge("read", "prune")
    .addEdge("prune", END)
    .compile();
  const result = await graph.invoke({
    messages: [
      new HumanMessage({ id: "h-1", content: "hi" }),
      {
        lc: 1,
        type: "constructor",
        id: ["langchain_core", "messages", "HumanMessage"],
        kwargs: { id: "h-2", content: "serialized" },
      },
      ["human", "a tuple"],
    ] as never,
  });
  return {
    seen: result.seen,
    remaining: result.messages.map((m: BaseMessage) => [
      m.getType(),
      m.id === undefined ? "no id" : m.id.startsWith("h-") || m.id.endsWith("-1") ? m.id : "generated",
    ]),
  };
}
