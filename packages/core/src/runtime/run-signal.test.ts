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

  it("a subgraph's run without a signal of its own makes no controller: it uses its parent task's signal", async () => {
    const child = new StateGraph({ item: channel.value(0) })
      .addNode("double", (s) => ({ item: s.item * 2 }))
      .addEdge(START, "double")
      .addEdge("double", END)
      .compile();
    const parent = new StateGraph({ count: channel.value(0), out: channel.append<number>() })
      .addNode("sub", async (arg: { item: number }) => ({ out: [(await child.invoke({ item: arg.item })).item] }))
      .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, item) => new Send("sub", { item })))
      .addEdge("sub", END)
      .compile();
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      expect((await parent.invoke({ count: 20 })).out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    } finally {
      globalThis.AbortController = Original;
    }
    expect(made).toBe(1); // the parent run's own; was one more per subgraph run
    // and a cancel still reaches them: the parent's signal is theirs
    const cancel = new Original();
    const slow = new StateGraph({ item: channel.value(0) })
      .addNode("wait", async () => {
        cancel.abort(new Error("stop"));
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { item: 1 };
      })
      .addNode("after", () => ({ item: 2 }))
      .addEdge(START, "wait")
      .addEdge("wait", "after")
      .addEdge("after", END)
      .compile();
    const outer = new StateGraph({ item: channel.value(0) })
      .addNode("sub", async () => slow.invoke({ item: 0 }))
      .addEdge(START, "sub")
      .addEdge("sub", END)
      .compile();
    await expect(outer.invoke({ item: 0 }, { signal: cancel.signal })).rejects.toMatchObject({ code: "RUN_CANCELLED" });
  });
});
