import { describe, expect, it } from "vitest";
import { channel, END, interrupt, MemorySaver, START, StateGraph } from "../index.js";
import { promisesDuring } from "../test/promises-during.js";

/** A chain of `n` nodes, each adding one to `k`; `async` makes every node return a promise. */
function chain(n: number, options: { async?: boolean; router?: "sync" | "async" | undefined } = {}) {
  const builder = new StateGraph({ k: channel.value(0), order: channel.append<string>() });
  const names = Array.from({ length: n }, (_, i) => `n${i}`);
  for (const name of names) {
    builder.addNode(name, options.async ? async (s) => ({ k: s.k + 1 }) : (s) => ({ k: s.k + 1 }));
  }
  builder.addEdge(START, names[0] as string);
  for (let i = 1; i < n; i++) {
    const [from, to] = [names[i - 1] as string, names[i] as string];
    if (options.router === "sync") builder.addConditionalEdges(from, () => to, [to]);
    else if (options.router === "async") builder.addConditionalEdges(from, async () => to, [to]);
    else builder.addEdge(from, to);
  }
  builder.addEdge(names[n - 1] as string, END);
  return builder.compile();
}

describe("supersteps of synchronous nodes", () => {
  it("make no promise: a run of 60 nodes creates as many as a run of 10", async () => {
    for (const router of [undefined, "sync"] as const) {
      const short = chain(10, { router });
      const long = chain(60, { router });
      await short.invoke({ k: 0 }, { recursionLimit: 100 });
      await long.invoke({ k: 0 }, { recursionLimit: 100 });
      const few = await promisesDuring(() => short.invoke({ k: 0 }, { recursionLimit: 100 }));
      const many = await promisesDuring(() => long.invoke({ k: 0 }, { recursionLimit: 100 }));
      expect(await long.invoke({ k: 0 }, { recursionLimit: 100 })).toMatchObject({ k: 60 });
      expect(few).toBeGreaterThan(0); // the hook counts: the run itself is async
      expect(many).toBe(few);
    }
  });

  it("with the memory saver too: a step stores its checkpoint without a promise", async () => {
    const saver = new MemorySaver();
    const chainOf = (n: number) => {
      const builder = new StateGraph({ k: channel.value(0) });
      const names = Array.from({ length: n }, (_, i) => `n${i}`);
      for (const name of names) builder.addNode(name, (s) => ({ k: s.k + 1 }));
      builder.addEdge(START, names[0] as string);
      for (let i = 1; i < n; i++) builder.addEdge(names[i - 1] as string, names[i] as string);
      builder.addEdge(names[n - 1] as string, END);
      return builder.compile({ checkpointer: saver });
    };
    const short = chainOf(10);
    const long = chainOf(60);
    await short.invoke({ k: 0 }, { threadId: "warm-short", recursionLimit: 100 });
    await long.invoke({ k: 0 }, { threadId: "warm-long", recursionLimit: 100 });
    const few = await promisesDuring(() => short.invoke({ k: 0 }, { threadId: "short", recursionLimit: 100 }));
    const many = await promisesDuring(() => long.invoke({ k: 0 }, { threadId: "long", recursionLimit: 100 }));
    expect(few).toBeGreaterThan(0);
    expect(many).toBe(few); // was ~3 more per step (the put's, the writer queue's, the await's)
    // and every step's checkpoint was stored: the input's, then one per node
    for (const [threadId, n] of [
      ["short", 10],
      ["long", 60],
    ] as const) {
      const history: number[] = [];
      for await (const t of saver.list(threadId)) history.push(t.values.k as number);
      expect(history).toEqual(Array.from({ length: n + 1 }, (_, i) => n - i));
    }
  });

  it("asynchronous nodes and routers are still awaited, in order", async () => {
    for (const options of [{ async: true }, { router: "async" as const }, { async: true, router: "async" as const }]) {
      expect(await chain(30, options).invoke({ k: 0 }, { recursionLimit: 100 })).toMatchObject({ k: 30 });
    }
  });

  it("a synchronous node that aborts the run's signal stops the run at that step", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const graph = new StateGraph({ k: channel.value(0) })
      .addNode("a", (s) => {
        ran.push("a");
        controller.abort(new Error("stop"));
        return { k: s.k + 1 };
      })
      .addNode("b", (s) => {
        ran.push("b");
        return { k: s.k + 1 };
      })
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", END)
      .compile();
    await expect(graph.invoke({ k: 0 }, { signal: controller.signal })).rejects.toMatchObject({
      code: "RUN_CANCELLED",
    });
    expect(ran).toEqual(["a"]);
  });

  it("a synchronous router that throws fails the run with its error", async () => {
    const graph = new StateGraph({ k: channel.value(0) })
      .addNode("a", (s) => ({ k: s.k + 1 }))
      .addNode("b", (s) => ({ k: s.k + 1 }))
      .addEdge(START, "a")
      .addConditionalEdges("a", () => {
        throw new Error("router broke");
      }, ["b"])
      .addEdge("b", END)
      .compile();
    await expect(graph.invoke({ k: 0 }, { recursionLimit: 100 })).rejects.toThrow("router broke");
  });

  it("the free interrupt() still finds its task in a synchronous node", async () => {
    const graph = new StateGraph({ answer: channel.value("") })
      .addNode("ask", () => ({ answer: interrupt<string>("name?") }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({ answer: "" }, { threadId: "t" });
    expect(paused.__interrupt__?.[0]?.value).toBe("name?");
  });
});
