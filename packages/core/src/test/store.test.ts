import { describe, expect, it } from "vitest";
import { Command, channel, getStore, MemorySaver, MemoryStore, START, StateGraph, type Store } from "../index.js";

/** A helper a node calls, as a tool would: it reaches the store through getStore(). */
async function remember(text: string): Promise<void> {
  await getStore()?.put(["memories", "ana"], text, { text });
}

function memoryGraph() {
  return new StateGraph({ seen: channel.value<string[]>([]), text: channel.value("") })
    .addNode("write", async (s, ctx) => {
      await ctx.store?.put(["notes"], "last", { text: s.text });
      await remember(s.text);
      return {};
    })
    .addNode("read", async (_s, ctx) => {
      const hits = (await ctx.store?.search(["memories"])) ?? [];
      return { seen: hits.map((h) => h.key) };
    })
    .addEdge(START, "write")
    .addEdge("write", "read");
}

describe("ctx.store", () => {
  it("gives nodes the store of compile({ store }), and getStore() the same one inside a node", async () => {
    const store = new MemoryStore();
    const graph = memoryGraph().compile({ store });
    const out = await graph.invoke({ text: "tea" });
    expect(out.seen).toEqual(["tea"]);
    expect((await store.get(["notes"], "last"))?.value).toEqual({ text: "tea" });
  });

  it("uses the run config's store over the compiled one, also in a checkpointed run", async () => {
    const compiled = new MemoryStore();
    const perRun = new MemoryStore();
    const graph = memoryGraph().compile({ store: compiled, checkpointer: new MemorySaver() });
    await graph.invoke({ text: "coffee" }, { threadId: "t1", store: perRun });
    expect(await compiled.get(["notes"], "last")).toBeNull();
    expect((await perRun.get(["notes"], "last"))?.value).toEqual({ text: "coffee" });
    const served = memoryGraph().compile().withStore(perRun);
    expect([...(await served.invoke({ text: "juice" })).seen].sort()).toEqual(["coffee", "juice"]);
  });

  it("reaches the nodes of a subgraph compiled without a store", async () => {
    const store = new MemoryStore();
    const inner = new StateGraph({ text: channel.value("") })
      .addNode("inner", async (s, ctx) => {
        await ctx.store?.put(["inner"], "k", { text: s.text });
        return {};
      })
      .addEdge(START, "inner")
      .compile();
    const outer = new StateGraph({ text: channel.value("") })
      .addNode("sub", inner)
      .addEdge(START, "sub")
      .compile({ store });
    await outer.invoke({ text: "from the subgraph" });
    expect((await store.get(["inner"], "k"))?.value).toEqual({ text: "from the subgraph" });
  });

  it("a put inside ctx.step happens once per task, even when the node runs again after an interrupt", async () => {
    const store = new MemoryStore();
    let puts = 0;
    const counting: Store = {
      ...store,
      get: (...a) => store.get(...a),
      search: (...a) => store.search(...a),
      delete: (...a) => store.delete(...a),
      listNamespaces: (...a) => store.listNamespaces(...a),
      sweepExpired: () => store.sweepExpired(),
      put: (...a) => {
        puts++;
        return store.put(...a);
      },
    };
    const graph = new StateGraph({ answer: channel.value("") })
      .addNode("ask", async (_s, ctx) => {
        await ctx.step("remember", () => ctx.store?.put(["log"], "asked", { at: "ask" }).then(() => "stored"));
        return { answer: ctx.interrupt<string>("ok?") };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver(), store: counting });
    await graph.invoke({ answer: "" }, { threadId: "s1" });
    const done = await graph.invoke(new Command({ resume: "yes" }), { threadId: "s1" });
    expect(done.answer).toBe("yes");
    expect(puts).toBe(1);
  });

  it("is undefined without a store, and getStore() is undefined outside a node", async () => {
    let seen: Store | undefined | null = null;
    let free: Store | undefined | null = null;
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("n", (_s, ctx) => {
        seen = ctx.store;
        free = getStore();
        return {};
      })
      .addEdge(START, "n")
      .compile();
    await graph.invoke({ x: 1 });
    expect(seen).toBeUndefined();
    expect(free).toBeUndefined();
    expect(getStore()).toBeUndefined();
  });
});
