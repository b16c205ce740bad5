import {
  Command,
  channel,
  END,
  getStore,
  interrupt,
  MemorySaver,
  MemoryStore,
  START,
  StateGraph,
  type Store,
} from "@trellis/core";
import { assistantMessage, type Message, type ToolMessage, tool, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { createToolNode, toolsCondition } from "../index.js";

const schema = { messages: channel.messages<Message>() };

function graphWith(tools: Parameters<typeof createToolNode>[0], saver = new MemorySaver()) {
  return new StateGraph(schema)
    .addNode("tools", createToolNode(tools))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile({ checkpointer: saver });
}

const calls = (...names: string[]) =>
  assistantMessage("", { toolCalls: names.map((name, i) => ({ id: `call_${i}`, name, args: { x: i } })) });

describe("createToolNode", () => {
  it("resumes three parallel calls without re-running the two that finished", async () => {
    const runs = { a: 0, b: 0, ask: 0 };
    const tools = [
      tool({ name: "a", description: "a", schema: z.object({ x: z.number() }), fn: () => `a${++runs.a}` }),
      tool({ name: "b", description: "b", schema: z.object({ x: z.number() }), fn: () => `b${++runs.b}` }),
      tool({
        name: "ask",
        description: "asks a person",
        schema: z.object({ x: z.number() }),
        fn: () => {
          runs.ask++;
          return `person said ${interrupt<string>({ question: "ok?" })}`;
        },
      }),
    ];
    const graph = graphWith(tools);
    const config = { threadId: "tn-1" };
    const paused = await graph.invoke({ messages: [userMessage("go"), calls("a", "ask", "b")] }, config);
    expect(paused.__interrupt__).toHaveLength(1);
    const done = await graph.invoke(new Command({ resume: "yes" }), config);
    const results = done.messages.filter((m): m is ToolMessage => m.role === "tool");
    expect(results.map((m) => [m.toolCallId, m.content])).toEqual([
      ["call_0", "a1"],
      ["call_1", "person said yes"],
      ["call_2", "b1"],
    ]);
    expect(runs).toEqual({ a: 1, b: 1, ask: 2 });
  });

  it("gives parallel interrupts distinct ids and resumes each with its own answer", async () => {
    const ask = tool({
      name: "ask",
      description: "asks",
      schema: z.object({ x: z.number() }),
      fn: ({ x }) => `answer ${x}: ${interrupt<string>({ question: `q${x}` })}`,
    });
    const graph = graphWith([ask]);
    const config = { threadId: "tn-2" };
    const paused = await graph.invoke({ messages: [calls("ask", "ask")] }, config);
    const pending = paused.__interrupt__ ?? [];
    expect(pending).toHaveLength(2);
    expect(new Set(pending.map((p) => p.id)).size).toBe(2);
    const byQuestion = Object.fromEntries(pending.map((p) => [(p.value as { question: string }).question, p.id]));
    const partial = await graph.invoke(new Command({ resume: { [byQuestion.q1 as string]: "one" } }), config);
    expect(partial.__interrupt__?.map((p) => p.id)).toEqual([byQuestion.q0]);
    const done = await graph.invoke(new Command({ resume: { [byQuestion.q0 as string]: "zero" } }), config);
    expect(done.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "answer 0: zero",
      "answer 1: one",
    ]);
  });

  it("turns tool errors and invalid arguments into tool messages", async () => {
    const strict = tool({
      name: "strict",
      description: "needs x",
      schema: z.object({ x: z.string() }),
      fn: () => "ok",
    });
    const broken = tool({
      name: "broken",
      description: "fails",
      schema: z.object({ x: z.number() }),
      fn: () => {
        throw new Error("database offline");
      },
    });
    const out = await graphWith([strict, broken]).invoke(
      { messages: [calls("strict", "broken", "missing")] },
      {
        threadId: "tn-3",
      },
    );
    const texts = out.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    expect(texts[0]).toMatch(/invalid arguments for tool "strict"/);
    expect(texts[1]).toMatch(/database offline/);
    expect(texts[2]).toMatch(/no tool named "missing"/);
  });

  it("toolsCondition routes on tool calls", () => {
    expect(toolsCondition({ messages: [calls("a")] })).toBe("tools");
    expect(toolsCondition({ messages: [assistantMessage("done")] })).toBe(END);
    expect(toolsCondition({ messages: [] })).toBe(END);
  });
});

describe("createToolNode and the store", () => {
  it("gives tools the run's store in their context and through getStore()", async () => {
    const store = new MemoryStore();
    const remember = tool({
      name: "remember",
      description: "keeps a fact",
      schema: z.object({ fact: z.string() }),
      fn: async ({ fact }, ctx) => {
        await (ctx.context.store as Store).put(["facts"], "a", { fact });
        await getStore()?.put(["facts"], "b", { fact: fact.toUpperCase() });
        return "kept";
      },
    });
    const graph = new StateGraph(schema)
      .addNode("tools", createToolNode([remember]))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ store });
    const call = assistantMessage("", { toolCalls: [{ id: "c1", name: "remember", args: { fact: "tea" } }] });
    const out = await graph.invoke({ messages: [userMessage("remember tea"), call] });
    expect(out.messages.at(-1)?.content).toBe("kept");
    expect((await store.search(["facts"])).map((i) => i.value.fact).sort()).toEqual(["TEA", "tea"]);
  });
});
