import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { Command, channel, END, getNodeContext, interrupt, MemorySaver, Send, START, StateGraph } from "../index.js";
import { interruptId } from "./node-context.js";

/** AbortControllers constructed while `fn` runs. */
async function controllersDuring(fn: () => Promise<unknown>): Promise<number> {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await fn();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

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

  it("a run whose nodes never read their signal makes no controller; one that does still gets a working signal", async () => {
    const ask = new StateGraph({ question: channel.value(""), answer: channel.value(""), done: channel.value(false) })
      .addNode("ask", (s) => ({ answer: interrupt<string>({ question: s.question }) }))
      .addNode("finish", () => ({ done: true }))
      .addEdge(START, "ask")
      .addEdge("ask", "finish")
      .addEdge("finish", END)
      .compile({ checkpointer: new MemorySaver() });
    const caller = new AbortController();
    const made = await controllersDuring(async () => {
      for (let i = 0; i < 5; i++) {
        const threadId = `t${i}`;
        const paused = await ask.invoke({ question: `q${i}` }, { threadId, signal: caller.signal });
        expect(paused.__interrupt__).toHaveLength(1);
        expect(await ask.invoke(new Command({ resume: `a${i}` }), { threadId })).toMatchObject({ done: true });
      }
    });
    expect(made).toBe(0); // was one per invoke: 10
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);

    // A node that reads ctx.signal gets the run's, aborted by the caller's cancel with its reason.
    const seen: AbortSignal[] = [];
    const cancel = new AbortController();
    const reading = new StateGraph({ n: channel.value(0) })
      .addNode("look", async (s, ctx) => {
        seen.push(ctx.signal);
        cancel.abort(new Error("stop"));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { n: s.n + 1 };
      })
      .addEdge(START, "look")
      .addEdge("look", END)
      .compile();
    await expect(reading.invoke({ n: 0 }, { signal: cancel.signal })).rejects.toMatchObject({ code: "RUN_CANCELLED" });
    expect(seen[0]?.aborted).toBe(true);
    expect((seen[0]?.reason as Error | undefined)?.message).toBe("stop");

    // A cancel that lands before anything read the signal: the signal made afterwards is aborted already.
    const early = new AbortController();
    const late: unknown[] = [];
    const once = new StateGraph({ n: channel.value(0) })
      .addNode("first", (s, ctx) => {
        early.abort(new Error("early"));
        late.push(ctx.signal.aborted, (ctx.signal.reason as Error).message);
        return { n: s.n + 1 };
      })
      .addNode("second", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "first")
      .addEdge("first", "second")
      .addEdge("second", END)
      .compile();
    await expect(once.invoke({ n: 0 }, { signal: early.signal })).rejects.toMatchObject({ code: "RUN_CANCELLED" });
    expect(late).toEqual([true, "early"]);
  });

  it("interrupt ids keep the values earlier versions stored", () => {
    expect(interruptId("", "task-1", 0)).toBe("5470457b3545dd505b28098045434abb");
    expect(interruptId("a:1", "task-1", "tool-7/2")).toBe("088a9465f37eeddec075f5caef63c40a");
  });
});
