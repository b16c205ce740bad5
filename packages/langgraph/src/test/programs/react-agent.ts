import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { ScriptedChatModel } from "../scripted-chat-model.js";
import type { Modules } from "./modules.js";

function tools(lg: Modules["lg"]) {
  const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
    name: "add",
    description: "Adds two numbers.",
    schema: z.object({ a: z.number(), b: z.number() }),
  });
  const broken = tool(
    (): string => {
      throw new Error("the printer is on fire");
    },
    { name: "print", description: "Prints.", schema: z.object({}) },
  );
  const refund = tool(
    ({ amount }: { amount: number }) => {
      const answer = lg.interrupt<{ action: string; amount: number }, string>({ action: "refund", amount });
      return answer === "yes" ? `refunded ${amount}` : `refund of ${amount} declined`;
    },
    { name: "refund", description: "Refunds after a person approves.", schema: z.object({ amount: z.number() }) },
  );
  return [add, broken, refund];
}

/**
 * The prebuilt ReAct agent: a tool call, a tool error answered as a ToolMessage, an approval before the
 * tools run (`interruptBefore`), and `invoke(null)` to continue.
 */
export async function prebuiltReactAgent({ lg, prebuilt }: Modules): Promise<unknown> {
  const model = new ScriptedChatModel([
    { content: "Let me add.", tool_calls: [{ id: "call-1", name: "add", args: { a: 2, b: 3 } }] },
    { tool_calls: [{ id: "call-2", name: "print", args: {} }] },
    { content: "2 + 3 = 5, and the printer failed." },
  ]);
  const agent = prebuilt.createReactAgent({
    llm: model,
    tools: tools(lg).slice(0, 2),
    prompt: "You are a calculator.",
    checkpointer: new lg.MemorySaver(),
    interruptBefore: ["tools"],
  });
  const config = { configurable: { thread_id: "calc" } };
  const first = await agent.invoke({ messages: [new HumanMessage("2+3, then print")] }, config);
  const paused = (await agent.getState(config)).next;
  const second = await agent.invoke(null, config);
  const third = await agent.invoke(null, config);
  return { first, paused, second: second.messages.length, third };
}

/**
 * A hand-built ReAct loop (MessagesAnnotation, ToolNode, toolsCondition) whose `refund` tool asks a
 * person with `interrupt()`; two calls pause in parallel and resume, each with its own answer.
 */
export async function approvalLoop({ lg, prebuilt }: Modules): Promise<unknown> {
  const { StateGraph, MessagesAnnotation, START, MemorySaver, Command } = lg;
  const model = new ScriptedChatModel([
    {
      tool_calls: [
        { id: "r1", name: "refund", args: { amount: 10 } },
        { id: "r2", name: "refund", args: { amount: 99 } },
      ],
    },
    { content: "Done with refunds." },
  ]).bindTools(tools(lg));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addNode("tools", new prebuilt.ToolNode(tools(lg)))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", prebuilt.toolsCondition, ["tools", "__end__"])
    .addEdge("tools", "agent")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "refunds" } };
  const paused = await graph.invoke({ messages: [new HumanMessage("refund both orders")] }, config);
  const pending = (paused as { __interrupt__?: Array<{ id: string; value: unknown }> }).__interrupt__ ?? [];
  const answers = Object.fromEntries(
    pending.map((i) => [i.id, (i.value as { amount: number }).amount < 50 ? "yes" : "no"]),
  );
  const done = await graph.invoke(new Command({ resume: answers }), config);
  return { paused, done };
}
