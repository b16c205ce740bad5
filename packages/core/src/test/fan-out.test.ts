import { describe, expect, it } from "vitest";
import { channel, END, MemorySaver, Send, START, StateGraph } from "../index.js";

describe("Send fan-out", () => {
  it("runs 3,000 packets with maxConcurrency 4 and loses none", async () => {
    let running = 0;
    let peak = 0;
    const graph = new StateGraph({ count: channel.value(0), results: channel.append<number>() })
      .addNode("worker", async (arg: { i: number }) => {
        running++;
        peak = Math.max(peak, running);
        await Promise.resolve();
        running--;
        return { results: [arg.i * 2] };
      })
      .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, i) => new Send("worker", { i })))
      .addEdge("worker", END)
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ count: 3000 }, { threadId: "fan", maxConcurrency: 4 });
    expect(out.results).toHaveLength(3000);
    expect(out.results).toEqual(Array.from({ length: 3000 }, (_, i) => i * 2));
    expect(peak).toBe(4);
  });

  it("merges map-reduce results in packet order whatever order they finish in", async () => {
    const graph = new StateGraph({ topics: channel.value<string[]>([]), jokes: channel.append<string>() })
      .addNode("joke", async (arg: { topic: string; delay: number }) => {
        await new Promise((r) => setTimeout(r, arg.delay));
        return { jokes: [`joke about ${arg.topic}`] };
      })
      .addConditionalEdges(START, (s) => s.topics.map((t, i) => new Send("joke", { topic: t, delay: (3 - i) * 5 })))
      .compile();
    const out = await graph.invoke({ topics: ["cats", "dogs", "owls"] });
    expect(out.jokes).toEqual(["joke about cats", "joke about dogs", "joke about owls"]);
  });

  it("applies the finished packets' writes once when a sibling pauses", async () => {
    const runs = new Map<number, number>();
    const { interrupt, Command } = await import("../index.js");
    const graph = new StateGraph({ results: channel.append<number>() })
      .addNode("w", (arg: { i: number }) => {
        runs.set(arg.i, (runs.get(arg.i) ?? 0) + 1);
        if (arg.i === 2) interrupt("approve packet 2?");
        return { results: [arg.i] };
      })
      .addConditionalEdges(START, () => [0, 1, 2, 3].map((i) => new Send("w", { i })))
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({}, { threadId: "fan-int" });
    expect(paused.__interrupt__).toHaveLength(1);
    const done = await graph.invoke(new Command({ resume: true }), { threadId: "fan-int" });
    expect(done.results).toEqual([0, 1, 2, 3]);
    expect([...runs.entries()].sort()).toEqual([
      [0, 1],
      [1, 1],
      [2, 2],
      [3, 1],
    ]);
  });
});
