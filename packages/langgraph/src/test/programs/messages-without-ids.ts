import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { Modules } from "./modules.js";

/** What a node reads of a message written without an id: its fields, and whether it has an id now. */
function look(messages: BaseMessage[]): unknown[] {
  return messages.map((m) => {
    const r = m as unknown as Record<string, unknown>;
    return { type: m.getType(), id: typeof m.id === "string", status: r.status, artifact: r.artifact };
  });
}

/**
 * Messages a node writes without ids (a tool result marked `status: "success"` with an artifact, as a
 * hand-written tool node makes them) are read back with their fields and the ids the reducer gave them:
 * by a router, by the next node, and after an interrupt and a resume from the saver.
 */
export async function messagesWithoutIds({ lg }: Modules): Promise<unknown> {
  const { Annotation, MessagesAnnotation, StateGraph, START, END, MemorySaver, Command, interrupt } = lg;
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    seen: Annotation<unknown[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const ids = (messages: BaseMessage[]) => messages.map((m) => m.id).join(",");
  let firstIds = "";
  const graph = new StateGraph(State)
    .addNode("write", () => ({
      messages: [
        new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "x" }, type: "tool_call" }] }),
        new ToolMessage({
          tool_call_id: "c1",
          name: "search",
          content: "3 hits",
          status: "success",
          artifact: { hits: 3 },
        }),
      ],
    }))
    .addNode("read", (state) => {
      firstIds = ids(state.messages);
      return { seen: [look(state.messages)] };
    })
    .addNode("ask", (state) => {
      const answer = interrupt("go on?");
      return { seen: [{ answer, sameIds: ids(state.messages) === firstIds }, look(state.messages)] };
    })
    .addEdge(START, "write")
    .addConditionalEdges("write", (state) => {
      const last = state.messages[state.messages.length - 1] as ToolMessage | undefined;
      return last?.status === "success" ? "read" : END;
    })
    .addEdge("read", "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "no-ids" } };
  await graph.invoke({ messages: [] }, config);
  const done = await graph.invoke(new Command({ resume: "yes" }), config);
  return { seen: done.seen, final: look(done.messages) };
}
