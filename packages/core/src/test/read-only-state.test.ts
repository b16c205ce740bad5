/**
 * Nodes and routers read one shared view of the state (architecture §3: "a read-only view"). Changing
 * it in place must neither leak to sibling tasks nor make `invoke`'s result differ from the checkpoint.
 */
import { describe, expect, it } from "vitest";
import { channel, END, MemorySaver, START, StateGraph } from "../index.js";

async function settle<T>(p: Promise<T>): Promise<{ ok: T } | { error: unknown }> {
  return p.then(
    (ok) => ({ ok }),
    (error: unknown) => ({ error }),
  );
}

describe("the state a node receives is read-only", () => {
  it("assigning a key (the seed's `state[...] = …; return state`) fails loudly instead of leaking", async () => {
    const saver = new MemorySaver();
    const seen: unknown[] = [];
    const graph = new StateGraph({ retry_count: channel.value(0), other: channel.value("") })
      .addNode("review", (state) => {
        (state as { retry_count: number }).retry_count += 1;
        return state;
      })
      .addNode("peer", async (state) => {
        await Promise.resolve();
        seen.push(state.retry_count);
        return { other: "peer" };
      })
      .addEdge(START, "review")
      .addEdge(START, "peer")
      .compile({ checkpointer: saver });
    const outcome = await settle(graph.invoke({ retry_count: 1 }, { threadId: "assign" }));
    expect("error" in outcome && outcome.error).toBeInstanceOf(TypeError);
    expect(String((outcome as { error: Error }).error.message)).toContain("retry_count");
    expect(seen).toEqual([1]);
    expect((await graph.getState({ threadId: "assign" })).values.retry_count).toBe(1);
  });

  it("a router assigning to the state (seed 001's route_from_deploy_approval) does not fork live and stored state", async () => {
    const graph = new StateGraph({ pending_approval: channel.value<string | null>(null) })
      .addNode("deploy_approval", () => ({}))
      .addEdge(START, "deploy_approval")
      .addConditionalEdges(
        "deploy_approval",
        (state) => {
          try {
            (state as { pending_approval: string | null }).pending_approval = "deploy";
          } catch {
            // A read-only view refuses it; LangGraph drops it. Either way it must not stick.
          }
          return "pending";
        },
        { pending: END },
      )
      .compile({ checkpointer: new MemorySaver() });
    const live = await graph.invoke({}, { threadId: "router" });
    const stored = (await graph.getState({ threadId: "router" })).values;
    expect(live).toEqual(stored);
    expect(stored.pending_approval).toBeNull();
  });
});

describe("what the caller gets back is its own", () => {
  it("invoke's and run's results can be changed and passed back in (seed 001's stream_with_approval)", async () => {
    const graph = new StateGraph({ plan_approved: channel.value<boolean | null>(null), n: channel.value(0) })
      .addNode("step", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "step")
      .compile({ checkpointer: new MemorySaver() });
    const state = await graph.invoke({}, { threadId: "caller" });
    state.plan_approved = true;
    expect(await graph.invoke(state, { threadId: "caller" })).toEqual({ plan_approved: true, n: 2 });
    const result = await graph.run({}, { threadId: "caller" });
    if (result.status !== "done") throw new Error("expected done");
    result.values.n = 100;
    expect((await graph.getState({ threadId: "caller" })).values.n).toBe(3);
  });
});
