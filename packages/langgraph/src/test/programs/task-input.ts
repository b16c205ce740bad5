import { HumanMessage, isBaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../scripted-chat-model.js";
import type { Modules } from "./modules.js";

/**
 * Code that reads its task's input with `getCurrentTaskInput()`: a tool run by a `ToolNode` reads the
 * graph's state (the user's name, the messages so far), a node reads what it was given, a router what
 * it routes on, a `Send` task its packet, and a call outside any node throws.
 */
export async function taskInput({ lg, prebuilt }: Modules): Promise<unknown> {
  const { Annotation, MessagesAnnotation, StateGraph, START, END, Send, MemorySaver, getCurrentTaskInput } = lg;
  const State = Annotation.Root({
    ...MessagesAnnotation.spec,
    userName: Annotation<string>(),
    topics: Annotation<string[]>(),
    seen: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  const greet = tool(
    () => {
      const state = getCurrentTaskInput<typeof State.State>();
      const humans = state.messages.filter((m) => isBaseMessage(m) && m.getType() === "human").length;
      return `hello ${state.userName}: ${state.messages.length} messages, ${humans} from you`;
    },
    { name: "greet", description: "Greets the user by name.", schema: z.object({}) },
  );
  const model = new ScriptedChatModel([
    { content: "", tool_calls: [{ id: "g1", name: "greet", args: {} }] },
    { content: "greeted" },
  ]).bindTools([greet]);
  const routed: string[] = [];
  const graph = new StateGraph(State)
    .addNode("agent", async (state, config) => {
      const input = getCurrentTaskInput<typeof State.State>();
      return {
        messages: [await model.invoke(state.messages, config)],
        seen: [`agent sees ${input.messages.length} messages, same object: ${input === state}`],
      };
    })
    .addNode("tools", new prebuilt.ToolNode([greet]))
    .addNode("topic", (packet: { topic: string; index: number }) => {
      const input = getCurrentTaskInput<{ topic: string; index: number }>();
      return { seen: [`topic task ${input.index}: ${input.topic}, same object: ${input === packet}`] };
    })
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      (state) => {
        const input = getCurrentTaskInput<typeof State.State>();
        routed.push(`router reads ${input.messages.length} messages, state ${state.messages.length}`);
        const last = state.messages[state.messages.length - 1] as { tool_calls?: unknown[] } | undefined;
        if (last?.tool_calls?.length) return "tools";
        return state.topics.map((topic, index) => new Send("topic", { topic, index }));
      },
      ["tools", "topic"],
    )
    .addEdge("tools", "agent")
    .addEdge("topic", END)
    .compile({ checkpointer: new MemorySaver() });
  const out = await graph.invoke(
    { messages: [new HumanMessage("hi, greet me")], userName: "Ada", topics: ["tides", "owls"] },
    { configurable: { thread_id: "greeting" } },
  );
  let outside: string;
  try {
    getCurrentTaskInput();
    outside = "no error";
  } catch (error) {
    outside = error instanceof Error ? "throws" : "throws a non-error";
  }
  return { out, outside, routed };
}
