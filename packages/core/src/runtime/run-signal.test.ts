import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { channel, END, getNodeContext, Send, START, StateGraph } from "../index.js";

describe("run signals", () => {
  it("a run stops listening to the caller's signal when it ends", async () => {
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("inc", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile();
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await graph.invoke({ n: i }, { signal: controller.signal });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("subgraph runs stop listening to their parent's signal when they end", async () => {
    const child = new StateGraph({ item: channel.value(0) })
      .addNode("double", (s) => ({ item: s.item * 2 }))
      .addEdge(START, "double")
      .addEdge("double", END)
      .compile();
    const listening: number[] = [];
    const parent = new StateGraph({ count: channel.value(0), out: channel.append<number>() })
      .addNode("sub", async (arg: { item: number }) => {
        const signal = getNodeContext().signal;
        const out = await child.invoke({ item: arg.item });
        listening.push(getEventListeners(signal, "abort").length);
        return { out: [out.item] };
      })
      .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, item) => new Send("sub", { item })))
      .addEdge("sub", END)
      .compile();
    const result = await parent.invoke({ count: 30 });
    expect(result.out).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    // The last task looks once every subgraph has ended: only the parent step's own listener is left.
    expect(listening.at(-1)).toBeLessThanOrEqual(1);
  });
});
