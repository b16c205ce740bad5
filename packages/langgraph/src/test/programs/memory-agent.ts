import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { ScriptedChatModel } from "../scripted-chat-model.js";
import type { Modules } from "./modules.js";

/**
 * A memory agent: a node reads the user's memories from the store (user id from `config.configurable`),
 * answers with them in a system prompt, and saves what the user said; a second thread of the same user
 * sees the first thread's memory.
 */
export async function memoryAgent({ lg }: Modules): Promise<unknown> {
  const { Annotation, MessagesAnnotation, StateGraph, START, END, MemorySaver, InMemoryStore, getStore } = lg;
  const State = Annotation.Root({ ...MessagesAnnotation.spec, turns: Annotation<number>() });
  const model = new ScriptedChatModel((messages: BaseMessage[]) => ({
    content: `I remember: ${String(messages[0]?.content)}`,
  }));
  const graph = new StateGraph(State)
    .addNode("remember", async (state, config) => {
      const userId = String(config.configurable?.user_id);
      const items = (await config.store?.search(["memories", userId])) ?? [];
      const known = items.map((i) => String(i.value.text)).sort();
      const reply = await model.invoke([new SystemMessage(known.join(", ") || "nothing"), ...state.messages]);
      const last = state.messages[state.messages.length - 1];
      await getStore()?.put(["memories", userId], `m${known.length}`, { text: String(last?.content) });
      return { messages: [reply], turns: (state.turns ?? 0) + 1 };
    })
    .addEdge(START, "remember")
    .addEdge("remember", END)
    .compile({ checkpointer: new MemorySaver(), store: new InMemoryStore() });
  const ana = { configurable: { thread_id: "a1", user_id: "ana" } };
  const first = await graph.invoke({ messages: [new HumanMessage("I like tea")] }, ana);
  const second = await graph.invoke({ messages: [new HumanMessage("and biscuits")] }, ana);
  const other = await graph.invoke(
    { messages: [new HumanMessage("hello")] },
    { configurable: { thread_id: "a2", user_id: "ana" } },
  );
  const stranger = await graph.invoke(
    { messages: [new HumanMessage("hi")] },
    { configurable: { thread_id: "b1", user_id: "bo" } },
  );
  const store = new InMemoryStore();
  await store.put(["ns"], "k", { v: 1 });
  const batch = await store.batch([
    { namespace: ["ns"], key: "k" },
    { namespacePrefix: ["ns"], limit: 5, offset: 0 },
  ]);
  const batchView = (batch as unknown[]).map((r) =>
    Array.isArray(r) ? r.map((i) => i.value) : (r as { value?: unknown } | null)?.value,
  );
  return { first, second, other, stranger, batchView };
}
