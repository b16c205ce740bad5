/**
 * The thread state API: getState, getStateHistory, updateState, forks, and the LangGraph config shape.
 */
import { describe, expect, it } from "vitest";
import {
  type CompiledGraph,
  channel,
  END,
  interrupt,
  ManualClock,
  MemorySaver,
  type RunConfig,
  START,
  StateGraph,
  type StateOf,
  type StateSchema,
  type StateSnapshot,
  TrellisError,
} from "../index.js";

async function history<S extends StateSchema>(
  graph: CompiledGraph<S>,
  config: RunConfig,
  options: { limit?: number; before?: string; filter?: Record<string, unknown> } = {},
): Promise<StateSnapshot<StateOf<S>>[]> {
  const out: StateSnapshot<StateOf<S>>[] = [];
  for await (const s of graph.getStateHistory(config, options)) out.push(s);
  return out;
}

const schema = {
  topic: channel.value(""),
  draft: channel.value(""),
  log: channel.append<string>(),
  total: channel.reduce((a: number, b: number) => a + b, 0),
};

/** START → plan → write → review ─(ok? END : write)… with review paused by interrupt(). */
function pipeline(saver: MemorySaver, clock?: ManualClock) {
  return new StateGraph(schema)
    .addNode("plan", (s) => ({ log: [`plan:${s.topic}`], total: 1 }))
    .addNode("write", (s) => ({ draft: `draft about ${s.topic}`, log: ["write"], total: 10 }))
    .addNode("review", (s) => {
      const verdict = interrupt<string>({ question: "ok?", draft: s.draft });
      return { log: [`review:${verdict}`] };
    })
    .addEdge(START, "plan")
    .addEdge("plan", "write")
    .addEdge("write", "review")
    .addConditionalEdges("review", (s) => (s.log.at(-1) === "review:ok" ? "done" : "again"), {
      done: END,
      again: "write",
    })
    .compile({ checkpointer: saver, name: "pipeline", ...(clock ? { clock } : {}) });
}

describe("getState", () => {
  it("shows values, next, tasks, interrupts, ids, metadata and createdAt", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "gs" };
    const before = Date.now();
    const paused = await graph.invoke({ topic: "ladders" }, config);
    const s = await graph.getState(config);
    expect(s.values).toEqual({
      topic: "ladders",
      draft: "draft about ladders",
      log: ["plan:ladders", "write"],
      total: 11,
    });
    expect(s.next).toEqual(["review"]);
    expect(s.tasks).toHaveLength(1);
    expect(s.tasks[0]).toMatchObject({ name: "review" });
    expect(typeof s.tasks[0]?.id).toBe("string");
    expect(s.tasks[0]?.interrupts).toEqual([
      {
        id: paused.__interrupt__?.[0]?.id,
        value: { question: "ok?", draft: "draft about ladders" },
        node: "review",
        namespace: "",
      },
    ]);
    expect(s.interrupts).toEqual(s.tasks[0]?.interrupts);
    expect(s.checkpointId).toMatch(/^[0-9a-f]{32}$/);
    expect(s.parentCheckpointId).toMatch(/^[0-9a-f]{32}$/);
    expect(s.parentCheckpointId! < s.checkpointId!).toBe(true);
    expect(s.metadata).toMatchObject({ source: "loop", step: 1, writes: { write: ["draft", "log", "total"] } });
    expect(Date.parse(s.createdAt as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(s.config).toEqual({ threadId: "gs", checkpointId: s.checkpointId });
  });

  it("numbers steps like LangGraph: input -1, then 0, 1, 2… with each step's writes", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "steps" };
    await graph.invoke({ topic: "x" }, config);
    const all = await history(graph, config);
    expect(all.map((s) => [s.metadata?.source, s.metadata?.step, s.next])).toEqual([
      ["loop", 1, ["review"]],
      ["loop", 0, ["write"]],
      ["input", -1, ["plan"]],
    ]);
    expect(all.map((s) => s.metadata?.writes)).toEqual([
      { write: ["draft", "log", "total"] },
      { plan: ["log", "total"] },
      { [START]: ["topic"] }, // as LangGraph records input: it cannot be mistaken for a node
    ]);
    // The parent chain links every checkpoint to the one before it.
    expect(all[0]?.parentCheckpointId).toBe(all[1]?.checkpointId);
    expect(all[1]?.parentCheckpointId).toBe(all[2]?.checkpointId);
    expect(all[2]?.parentCheckpointId).toBeUndefined();
  });

  it("a thread with no checkpoint shows the defaults and nothing next", async () => {
    const graph = pipeline(new MemorySaver());
    const s = await graph.getState({ threadId: "nobody" });
    expect(s.values).toEqual({ topic: "", draft: "", log: [], total: 0 });
    expect(s.next).toEqual([]);
    expect(s.checkpointId).toBeUndefined();
    expect(s.metadata).toBeUndefined();
  });

  it("a failed task shows its error", async () => {
    let fail = true;
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("flaky", () => {
        if (fail) throw new RangeError("quota exceeded");
        return { x: 1 };
      })
      .addEdge(START, "flaky")
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "err" };
    await expect(graph.invoke({}, config)).rejects.toThrow("quota exceeded");
    const s = await graph.getState(config);
    expect(s.next).toEqual(["flaky"]);
    expect(s.tasks[0]?.error).toEqual({ name: "RangeError", message: "quota exceeded" });
    fail = false;
    expect(await graph.invoke(null, config)).toEqual({ x: 1 });
  });

  it("accepts LangGraph's { configurable: { thread_id, checkpoint_id } }", async () => {
    const graph = pipeline(new MemorySaver());
    await graph.invoke({ topic: "cfg" }, { configurable: { thread_id: "lg" } });
    const [latest, middle] = await history(graph, { configurable: { thread_id: "lg" } });
    const old = await graph.getState({
      configurable: { thread_id: "lg", checkpoint_id: middle?.checkpointId as string },
    });
    expect(old.checkpointId).toBe(middle?.checkpointId);
    expect(old.next).toEqual(["write"]);
    expect(old.values.draft).toBe("");
    expect((await graph.getState({ configurable: { thread_id: "lg" } })).checkpointId).toBe(latest?.checkpointId);
  });
});

describe("getStateHistory", () => {
  async function longThread() {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "hist" };
    await graph.invoke({ topic: "h" }, { ...config, metadata: { user: "ada" } });
    await graph.updateState(config, { topic: "h2" }, "plan");
    return { graph, config };
  }

  it("lists newest first with strictly decreasing ids", async () => {
    const { graph, config } = await longThread();
    const all = await history(graph, config);
    expect(all).toHaveLength(4);
    const ids = all.map((s) => s.checkpointId as string);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
  });

  it("limit, before and filter narrow the list", async () => {
    const { graph, config } = await longThread();
    const all = await history(graph, config);
    expect((await history(graph, config, { limit: 2 })).map((s) => s.checkpointId)).toEqual(
      all.slice(0, 2).map((s) => s.checkpointId),
    );
    const before = await history(graph, config, { before: all[1]?.checkpointId as string });
    expect(before.map((s) => s.checkpointId)).toEqual(all.slice(2).map((s) => s.checkpointId));
    const updates = await history(graph, config, { filter: { source: "update" } });
    expect(updates).toHaveLength(1);
    expect(updates[0]?.metadata?.writes).toEqual({ plan: ["topic"] });
    expect((await history(graph, config, { filter: { step: 0 } })).map((s) => s.metadata?.writes)).toEqual([
      { plan: ["log", "total"] },
    ]);
    // The run's own metadata is stored on its checkpoints and can be filtered on.
    expect(await history(graph, config, { filter: { user: "ada" } })).toHaveLength(3);
    expect(await history(graph, config, { filter: { source: "loop" }, limit: 1 })).toHaveLength(1);
    expect(await history(graph, config, { filter: { source: "fork" } })).toEqual([]);
  });
});

describe("updateState", () => {
  it("without asNode: as the node that wrote last, through the reducers, routing from it", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "up1" };
    await graph.invoke({ topic: "t" }, config);
    const previous = await graph.getState(config);
    const ref = await graph.updateState(config, { log: ["human note"], total: 5, draft: "edited" });
    const s = await graph.getState(config);
    expect(ref).toEqual({ threadId: "up1", checkpointId: s.checkpointId });
    expect(s.values).toEqual({ topic: "t", draft: "edited", log: ["plan:t", "write", "human note"], total: 16 });
    expect(s.metadata).toMatchObject({ source: "update", step: 2, writes: { write: ["log", "total", "draft"] } });
    expect(s.parentCheckpointId).toBe(previous.checkpointId);
    expect(s.next).toEqual(["review"]); // write → review
    // The pending interrupt belonged to the old checkpoint; review runs again and asks again.
    const again = await graph.invoke(null, config);
    expect(again.__interrupt__?.[0]?.value).toEqual({ question: "ok?", draft: "edited" });
  });

  it("with asNode: routes through that node's router with the new values", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "up2" };
    await graph.invoke({ topic: "t" }, config);
    await graph.updateState(config, { log: ["review:ok"] }, "review");
    const s = await graph.getState(config);
    expect(s.next).toEqual([]); // the router saw review:ok → END
    expect(s.metadata?.writes).toEqual({ review: ["log"] });
    await graph.updateState(config, { log: ["review:no"] }, "review");
    expect((await graph.getState(config)).next).toEqual(["write"]);
  });

  it("asNode START on a fresh thread starts it at the entry point", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "up3" };
    await graph.updateState(config, { topic: "seeded" });
    const s = await graph.getState(config);
    expect(s.next).toEqual(["plan"]);
    expect(s.metadata).toMatchObject({ source: "update", step: -1 });
    const paused = await graph.invoke(null, config);
    expect(paused.log).toEqual(["plan:seeded", "write"]);
  });

  it("refuses an unknown asNode and an ambiguous last step, naming them", async () => {
    const fan = new StateGraph({ a: channel.value(0), b: channel.value(0) })
      .addNode("left", () => ({ a: 1 }))
      .addNode("right", () => ({ b: 1 }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "up4" };
    await fan.invoke({}, config);
    const unknown = await fan.updateState(config, { a: 2 }, "middle").catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(TrellisError);
    expect((unknown as TrellisError).code).toBe("INVALID_ARGUMENT");
    expect((unknown as Error).message).toContain('"middle"');
    const ambiguous = await fan.updateState(config, { a: 2 }).catch((e: unknown) => e);
    expect((ambiguous as TrellisError).code).toBe("INVALID_ARGUMENT");
    expect((ambiguous as Error).message).toMatch(/left.*right|right.*left/);
    await fan.updateState(config, { a: 2 }, "left");
    expect((await fan.getState(config)).values).toEqual({ a: 2, b: 1 });
  });

  it("a node that wrote nothing is still the one updateState continues from", async () => {
    const graph = new StateGraph({ status: channel.value("new") })
      .addNode("start_node", () => ({ status: "started" }))
      .addNode("gate", () => undefined)
      .addNode("after", () => ({ status: "after" }))
      .addEdge(START, "start_node")
      .addEdge("start_node", "gate")
      .addEdge("gate", "after")
      .compile({ checkpointer: new MemorySaver(), interruptAfter: ["gate"] });
    const config = { threadId: "silent" };
    await graph.invoke({}, config);
    expect((await graph.getState(config)).metadata?.writes).toEqual({ gate: [] });
    await graph.updateState(config, { status: "approved" });
    expect((await graph.getState(config)).next).toEqual(["after"]);
  });

  it('after the input checkpoint it continues from START, even with a node named "input"', async () => {
    const ran: string[] = [];
    const graph = new StateGraph({ q: channel.value("") })
      .addNode("input", (s) => {
        ran.push("input");
        return { q: s.q.trim() };
      })
      .addNode("answer", () => {
        ran.push("answer");
      })
      .addEdge(START, "input")
      .addEdge("input", "answer")
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["input"] });
    const config = { threadId: "input-node" };
    await graph.invoke({ q: " hi " }, config);
    await graph.updateState(config, { q: " edited " });
    expect((await graph.getState(config)).next).toEqual(["input"]);
    expect(await graph.invoke(null, config)).toEqual({ q: "edited" });
    expect(ran).toEqual(["input", "answer"]);
  });

  it("an update from another compiled graph in the same millisecond is the latest", async () => {
    const saver = new MemorySaver();
    const clock = new ManualClock(1_700_000_000_000);
    const a = pipeline(saver, clock);
    const b = pipeline(saver, clock); // another process, same clock reading
    const config = { threadId: "same-ms" };
    await a.invoke({ topic: "t" }, config);
    const ref = await b.updateState(config, { topic: "from b" }, "plan");
    const s = await a.getState(config);
    expect(s.checkpointId).toBe(ref.checkpointId);
    expect(s.values.topic).toBe("from b");
    const ids = (await history(a, config)).map((h) => h.checkpointId as string);
    expect([...ids].sort().reverse()).toEqual(ids);
  });
});

describe("time travel and forks", () => {
  it("invoking at an older checkpoint forks the thread and leaves the old branch intact", async () => {
    const saver = new MemorySaver();
    let verdict = "no";
    const graph = new StateGraph({ log: channel.append<string>(), n: channel.value(0) })
      .addNode("a", (s) => ({ log: ["a"], n: s.n + 1 }))
      .addNode("b", (s) => ({ log: [`b:${verdict}`], n: s.n + 1 }))
      .addNode("c", (s) => ({ log: ["c"], n: s.n + 1 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .compile({ checkpointer: saver });
    const config = { threadId: "fork" };
    expect(await graph.invoke({ log: ["in"] }, config)).toEqual({ log: ["in", "a", "b:no", "c"], n: 3 });
    const original = await history(graph, config);
    const afterA = original.find((s) => s.next[0] === "b");
    expect(afterA?.values).toEqual({ log: ["in", "a"], n: 1 });

    verdict = "yes";
    const forked = await graph.invoke(null, { threadId: "fork", checkpointId: afterA?.checkpointId as string });
    expect(forked).toEqual({ log: ["in", "a", "b:yes", "c"], n: 3 });

    const latest = await graph.getState(config);
    expect(latest.values.log).toEqual(["in", "a", "b:yes", "c"]);
    const all = await history(graph, config);
    expect(all).toHaveLength(original.length + 2);
    // The fork's first checkpoint hangs off the old one.
    const forkStart = all.find((s) => s.values.log.at(-1) === "b:yes");
    expect(forkStart?.parentCheckpointId).toBe(afterA?.checkpointId);
    // Every checkpoint of the old branch reads as before (values are rebuilt from deltas).
    for (const old of original) {
      const again = await graph.getState({ threadId: "fork", checkpointId: old.checkpointId as string });
      expect(again.values).toEqual(old.values);
      expect(again.next).toEqual(old.next);
    }
  });

  it("a fork re-runs the parallel tasks of the checkpoint it starts from, like a single task", async () => {
    let version = 1;
    const graph = new StateGraph({ log: channel.append<string>() })
      .addNode("a", () => ({ log: [`a${version}`] }))
      .addNode("b", () => ({ log: [`b${version}`] }))
      .addNode("solo", () => ({ log: [`solo${version}`] }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(["a", "b"], "solo")
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "fork-parallel" };
    expect(await graph.invoke({}, config)).toEqual({ log: ["a1", "b1", "solo1"] });
    const input = (await history(graph, config)).find((s) => s.metadata?.source === "input");
    expect(input?.next).toEqual(["a", "b"]);
    version = 2;
    const forked = await graph.invoke(null, { ...config, checkpointId: input?.checkpointId as string });
    expect(forked).toEqual({ log: ["a2", "b2", "solo2"] });
  });

  it("updateState at an older checkpoint forks from there", async () => {
    const graph = pipeline(new MemorySaver());
    const config = { threadId: "fork2" };
    await graph.invoke({ topic: "first" }, config);
    const [, afterPlan] = await history(graph, config);
    expect(afterPlan?.next).toEqual(["write"]);
    const ref = await graph.updateState(
      { configurable: { thread_id: "fork2", checkpoint_id: afterPlan?.checkpointId as string } },
      { topic: "second" },
      "plan",
    );
    const s = await graph.getState(config);
    expect(s.checkpointId).toBe(ref.checkpointId);
    expect(s.parentCheckpointId).toBe(afterPlan?.checkpointId);
    expect(s.values).toEqual({ topic: "second", draft: "", log: ["plan:first"], total: 1 });
    const paused = await graph.invoke(null, config);
    expect(paused.draft).toBe("draft about second");
    expect(paused.log).toEqual(["plan:first", "write"]);
  });

  it("forks of a long append-only channel stay correct on both branches", async () => {
    const graph = new StateGraph({ messages: channel.messages(), turn: channel.value(0) })
      .addNode("bot", (s) => ({ messages: [{ role: "assistant", content: `reply ${s.turn}` }], turn: s.turn + 1 }))
      .addEdge(START, "bot")
      .compile({ checkpointer: new MemorySaver(), snapshotEvery: 4 });
    const config = { threadId: "fork3" };
    for (let i = 0; i < 9; i++) await graph.invoke({ messages: [{ role: "user", content: `q${i}` }] }, config);
    const all = await history(graph, config);
    const mid = all.find((s) => s.values.turn === 4 && s.next.length === 0);
    expect(mid?.values.messages).toHaveLength(8);
    await graph.invoke(
      { messages: [{ role: "user", content: "branch" }] },
      {
        threadId: "fork3",
        checkpointId: mid?.checkpointId as string,
      },
    );
    const branch = await graph.getState(config);
    expect(branch.values.messages.map((m) => m.content)).toEqual([
      ...(mid?.values.messages ?? []).map((m) => m.content),
      "branch",
      "reply 4",
    ]);
    const main = all[0];
    const mainAgain = await graph.getState({ threadId: "fork3", checkpointId: main?.checkpointId as string });
    expect(mainAgain.values.messages).toEqual(main?.values.messages);
    expect(mainAgain.values.messages).toHaveLength(18);
  });
});
