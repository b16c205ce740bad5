import { describe, expect, it } from "vitest";
import { Command, channel, END, interrupt, MemorySaver, START, StateGraph } from "../index.js";

describe("basic runs", () => {
  it("runs a chain and returns the state", async () => {
    const graph = new StateGraph({ n: channel.value(0), log: channel.append<string>() })
      .addNode("a", (s) => ({ n: s.n + 1, log: ["a"] }))
      .addNode("b", (s) => ({ n: s.n * 10, log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    expect(await graph.invoke({ n: 1 })).toEqual({ n: 20, log: ["a", "b"] });
  });

  it("pauses on interrupt() and resumes with Command", async () => {
    const saver = new MemorySaver();
    let calls = 0;
    const graph = new StateGraph({ answer: channel.value(""), asked: channel.value(0) })
      .addNode("ask", () => {
        calls++;
        const a = interrupt<string>({ q: "name?" });
        return { answer: a };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: saver });
    const first = await graph.invoke({ asked: 1 }, { threadId: "t" });
    expect(first.__interrupt__).toHaveLength(1);
    expect(first.__interrupt__?.[0]?.value).toEqual({ q: "name?" });
    const state = await graph.getState({ threadId: "t" });
    expect(state.next).toEqual(["ask"]);
    expect(state.interrupts[0]?.id).toBe(first.__interrupt__?.[0]?.id);
    const done = await graph.invoke(new Command({ resume: "Ada" }), { threadId: "t" });
    expect(done).toEqual({ answer: "Ada", asked: 1 });
    expect(calls).toBe(2);
    expect((await graph.getState({ threadId: "t" })).next).toEqual([]);
  });
});
