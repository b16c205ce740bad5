import { HumanMessage } from "@langchain/core/messages";
import { collect, observe } from "../observe.js";
import { ScriptedChatModel } from "../scripted-chat-model.js";
import type { Modules } from "./modules.js";

function chatGraph({ lg }: Modules) {
  const { Annotation, MessagesAnnotation, StateGraph, START, END } = lg;
  const State = Annotation.Root({ ...MessagesAnnotation.spec, note: Annotation<string>() });
  const model = new ScriptedChatModel(() => ({ content: "Hello there, friend." }));
  return new StateGraph(State)
    .addNode("agent", async (state, config) => {
      config.writer?.({ stage: "thinking", seen: state.messages.length });
      return { messages: [await model.invoke(state.messages, config)] };
    })
    .addNode("finish", () => ({ note: "done" }))
    .addEdge(START, "agent")
    .addEdge("agent", "finish")
    .addEdge("finish", END)
    .compile();
}

/** The message chunk and the metadata keys a chat UI reads from `messages` mode. */
function messagePart(chunk: unknown): unknown {
  const [message, meta] = chunk as [unknown, Record<string, unknown>];
  return [observe(message), { langgraph_node: meta.langgraph_node }];
}

/** Streams one chat graph in each mode, alone and together. */
export async function streamingModes(modules: Modules): Promise<unknown> {
  const graph = chatGraph(modules);
  const input = () => ({ messages: [new HumanMessage({ id: "h1", content: "hi" })] });
  const values = await collect(graph.stream(input(), { streamMode: "values" }));
  const updates = await collect(graph.stream(input(), { streamMode: "updates" }));
  const custom = await collect(graph.stream(input(), { streamMode: "custom" }));
  const messages: unknown[] = [];
  for await (const chunk of await graph.stream(input(), { streamMode: "messages" })) messages.push(messagePart(chunk));
  const mixed = await collect(graph.stream(input(), { streamMode: ["updates", "custom"] }));
  const debug: unknown[] = [];
  for await (const event of await graph.stream(input(), { streamMode: "debug" })) {
    const e = event as { type: string; payload: { name?: string } };
    if (e.type === "task") debug.push([e.type, e.payload.name]);
  }
  return { values, updates, custom, messages, mixed, debug };
}

/** Streams a parent graph with `subgraphs: true`: chunks come with the namespace they came from. */
export async function streamingSubgraphs({ lg }: Modules): Promise<unknown> {
  const { Annotation, StateGraph, START, END } = lg;
  const State = Annotation.Root({ steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
  const child = new StateGraph(State)
    .addNode("inner", () => ({ steps: ["inner"] }))
    .addEdge(START, "inner")
    .addEdge("inner", END)
    .compile();
  const graph = new StateGraph(State)
    .addNode("outer", () => ({ steps: ["outer"] }))
    .addNode("child", child)
    .addEdge(START, "outer")
    .addEdge("outer", "child")
    .addEdge("child", END)
    .compile();
  const out: unknown[] = [];
  for await (const chunk of await graph.stream({ steps: [] }, { streamMode: "updates", subgraphs: true })) {
    const [ns, update] = chunk as [string[], unknown];
    out.push([ns.map((segment) => segment.split(":")[0]), observe(update)]);
  }
  return out;
}

/** `streamEvents` v2: the token chunks of the chat model and the nodes' ends, as a chat UI reads them. */
export async function streamingEvents(modules: Modules): Promise<unknown> {
  const graph = chatGraph(modules);
  const tokens: unknown[] = [];
  const nodeEnds: string[] = [];
  let final: unknown;
  const input = { messages: [new HumanMessage({ id: "h1", content: "hi" })] };
  for await (const e of graph.streamEvents(input, { version: "v2" })) {
    if (e.event === "on_chat_model_stream") tokens.push(observe(e.data.chunk));
    if (e.event === "on_chain_end" && ["agent", "finish"].includes(e.name)) nodeEnds.push(e.name);
    if (e.event === "on_chain_end" && e.name === "LangGraph") final = observe(e.data.output);
  }
  return { tokens, nodeEnds, final };
}
