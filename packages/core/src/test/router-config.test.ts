import { describe, expect, it } from "vitest";
import { channel, END, MemorySaver, START, StateGraph } from "../index.js";

describe("routers see the run's config", () => {
  it("a router reads configurable values and the thread id of the run", async () => {
    const seen: unknown[] = [];
    const graph = new StateGraph({ n: channel.reduce((a: number, b: number) => a + b, 0) })
      .addNode("step", () => ({ n: 1 }))
      .addEdge(START, "step")
      .addConditionalEdges("step", (state, { config }) => {
        seen.push(config.threadId);
        return state.n >= Number(config.configurable?.max ?? 6) ? END : "step";
      })
      .compile({ checkpointer: new MemorySaver() });
    const result = await graph.invoke({}, { configurable: { thread_id: "t1", max: 2 } });
    expect(result.n).toBe(2);
    expect(seen).toEqual(["t1", "t1"]);
  });
});
