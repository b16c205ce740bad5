/**
 * interrupt() and resume: several interrupts per node, resume maps across parallel tasks, partial
 * resumes, static breakpoints, and the shape `invoke` returns.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  type Interrupt,
  interrupt,
  MemorySaver,
  ResumeError,
  Send,
  START,
  StateGraph,
  TrellisError,
} from "../index.js";

const ids = (list: Interrupt[] | undefined) => (list ?? []).map((i) => i.id);

describe("several interrupts in one node", () => {
  function form(saver: MemorySaver) {
    const runs = { count: 0 };
    const graph = new StateGraph({ name: channel.value(""), age: channel.value(0), city: channel.value("") })
      .addNode("form", (_s, ctx) => {
        runs.count++;
        const name = interrupt<string>({ ask: "name" });
        const age = ctx.interrupt<number>({ ask: "age", name });
        const city = interrupt<string>({ ask: "city", name, age });
        return { name, age, city };
      })
      .addEdge(START, "form")
      .compile({ checkpointer: saver });
    return { graph, runs };
  }

  it("the i-th call returns the i-th answer", async () => {
    const { graph, runs } = form(new MemorySaver());
    const config = { threadId: "form" };
    const p1 = await graph.invoke({}, config);
    expect(p1.__interrupt__?.map((i) => i.value)).toEqual([{ ask: "name" }]);
    const p2 = await graph.invoke(new Command({ resume: "Ada" }), config);
    expect(p2.__interrupt__?.map((i) => i.value)).toEqual([{ ask: "age", name: "Ada" }]);
    const p3 = await graph.invoke(new Command({ resume: 36 }), config);
    expect(p3.__interrupt__?.map((i) => i.value)).toEqual([{ ask: "city", name: "Ada", age: 36 }]);
    const ids3 = new Set([...ids(p1.__interrupt__), ...ids(p2.__interrupt__), ...ids(p3.__interrupt__)]);
    expect(ids3.size).toBe(3);
    const done = await graph.invoke(new Command({ resume: "London" }), config);
    expect(done).toEqual({ name: "Ada", age: 36, city: "London" });
    expect(runs.count).toBe(4); // the node re-runs from the top on each resume, as in LangGraph
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("answers can be given by id, and an answered id cannot be answered again", async () => {
    const { graph } = form(new MemorySaver());
    const config = { threadId: "form-ids" };
    const p1 = await graph.invoke({}, config);
    const first = ids(p1.__interrupt__)[0] as string;
    const p2 = await graph.invoke(new Command({ resume: { [first]: "Grace" } }), config);
    const stale = await graph.invoke(new Command({ resume: { [first]: "Other" } }), config).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(ResumeError);
    expect((stale as ResumeError).code).toBe("RESUME_MISMATCH");
    const second = ids(p2.__interrupt__)[0] as string;
    const p3 = await graph.invoke(new Command({ resume: { [second]: 85 } }), config);
    const done = await graph.invoke(new Command({ resume: "NYC" }), config);
    expect(p3.__interrupt__).toHaveLength(1);
    expect(done).toEqual({ name: "Grace", age: 85, city: "NYC" });
  });

  it("resume values may be objects, null, or falsy, and arrive unchanged", async () => {
    const saver = new MemorySaver();
    const got: unknown[] = [];
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("ask", () => {
        got.length = 0;
        got.push(interrupt("a"), interrupt("b"), interrupt("c"), interrupt("d"));
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: saver });
    const config = { threadId: "values" };
    await graph.invoke({}, config);
    await graph.invoke(new Command({ resume: { approved: true, at: new Date(0) } }), config);
    await graph.invoke(new Command({ resume: null }), config);
    await graph.invoke(new Command({ resume: 0 }), config);
    await graph.invoke(new Command({ resume: "" }), config);
    expect(got).toEqual([{ approved: true, at: new Date(0) }, null, 0, ""]);
  });

  it("a resume value that is not plain data is refused and the interrupt stays pending", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("ask", () => ({ n: interrupt<number>("n?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: saver });
    const config = { threadId: "bad-resume" };
    await graph.invoke({}, config);
    const error = await graph.invoke(new Command({ resume: () => 1 }), config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrellisError);
    expect((await graph.getState(config)).interrupts).toHaveLength(1);
    expect(await graph.invoke(new Command({ resume: 7 }), config)).toEqual({ n: 7 });
  });
});

describe("interrupts in parallel tasks", () => {
  function panel(saver: MemorySaver) {
    const runs: Record<string, number> = {};
    const reviewer = (name: string) => () => {
      runs[name] = (runs[name] ?? 0) + 1;
      return { votes: [`${name}:${interrupt<string>({ reviewer: name })}`] };
    };
    const graph = new StateGraph({ votes: channel.append<string>(), topic: channel.value("") })
      .addNode("legal", reviewer("legal"))
      .addNode("safety", reviewer("safety"))
      .addNode("quick", () => {
        runs.quick = (runs.quick ?? 0) + 1;
        return { votes: ["quick:auto"] };
      })
      .addNode("tally", (s) => ({ topic: `${s.votes.length} votes` }))
      .addEdge(START, "legal")
      .addEdge(START, "safety")
      .addEdge(START, "quick")
      .addEdge(["legal", "safety", "quick"], "tally")
      .addEdge("tally", END)
      .compile({ checkpointer: saver });
    return { graph, runs };
  }

  it("each pending interrupt has its own id; invoke returns them as __interrupt__", async () => {
    const { graph } = panel(new MemorySaver());
    const paused = await graph.invoke({}, { threadId: "p1" });
    expect(paused.__interrupt__).toHaveLength(2);
    const byReviewer = Object.fromEntries(
      (paused.__interrupt__ ?? []).map((i) => [(i.value as { reviewer: string }).reviewer, i]),
    );
    expect(byReviewer.legal).toMatchObject({ value: { reviewer: "legal" }, node: "legal", namespace: "" });
    expect(byReviewer.safety).toMatchObject({ value: { reviewer: "safety" }, node: "safety" });
    expect(byReviewer.legal?.id).toMatch(/^[0-9a-f]{32}$/);
    expect(byReviewer.legal?.id).not.toBe(byReviewer.safety?.id);
    const state = await graph.getState({ threadId: "p1" });
    expect(state.interrupts.map((i) => i.id).sort()).toEqual(ids(paused.__interrupt__).sort());
    expect(
      state.tasks
        .filter((t) => t.interrupts.length > 0)
        .map((t) => t.name)
        .sort(),
    ).toEqual(["legal", "safety"]);
  });

  it("a full map resumes all of them at once", async () => {
    const { graph, runs } = panel(new MemorySaver());
    const config = { threadId: "p2" };
    const paused = await graph.invoke({}, config);
    const map = Object.fromEntries(
      (paused.__interrupt__ ?? []).map((i) => [
        i.id,
        (i.value as { reviewer: string }).reviewer === "legal" ? "yes" : "no",
      ]),
    );
    const done = await graph.invoke(new Command({ resume: map }), config);
    expect(done).toEqual({ votes: ["legal:yes", "safety:no", "quick:auto"], topic: "3 votes" });
    expect(runs).toEqual({ legal: 2, safety: 2, quick: 1 }); // quick's result was kept, not re-run
  });

  it("a partial map resumes those it names and leaves the rest pending", async () => {
    const { graph, runs } = panel(new MemorySaver());
    const config = { threadId: "p3" };
    const paused = await graph.invoke({}, config);
    const legal = paused.__interrupt__?.find((i) => i.node === "legal") as Interrupt;
    const safety = paused.__interrupt__?.find((i) => i.node === "safety") as Interrupt;
    const half = await graph.invoke(new Command({ resume: { [legal.id]: "yes" } }), config);
    expect(half.__interrupt__).toEqual([safety]);
    expect(half.votes).toEqual([]); // nothing is applied until the whole superstep finishes
    const state = await graph.getState(config);
    expect(state.interrupts.map((i) => i.id)).toEqual([safety.id]);
    expect(state.next.sort()).toEqual(["legal", "quick", "safety"]);
    // Now a single value is unambiguous.
    const done = await graph.invoke(new Command({ resume: "no" }), config);
    expect(done).toEqual({ votes: ["legal:yes", "safety:no", "quick:auto"], topic: "3 votes" });
    expect(runs).toEqual({ legal: 2, safety: 3, quick: 1 });
  });

  it("ids stay unique across Send tasks of the same node", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ items: channel.value<string[]>([]), answers: channel.append<string>() })
      .addNode("fan", () => ({}))
      .addNode("confirm", (item: { name: string }) => ({
        answers: [`${item.name}=${interrupt<string>({ confirm: item.name })}`],
      }))
      .addEdge(START, "fan")
      .addConditionalEdges("fan", (s) => s.items.map((name) => new Send("confirm", { name })), ["confirm"])
      .compile({ checkpointer: saver });
    const config = { threadId: "sends" };
    const paused = await graph.invoke({ items: ["a", "b", "c"] }, config);
    expect(paused.__interrupt__).toHaveLength(3);
    expect(new Set(ids(paused.__interrupt__)).size).toBe(3);
    expect(paused.__interrupt__?.every((i) => i.node === "confirm")).toBe(true);
    const answers = Object.fromEntries(
      (paused.__interrupt__ ?? []).map((i) => [i.id, `ok-${(i.value as { confirm: string }).confirm}`]),
    );
    const done = await graph.invoke(new Command({ resume: answers }), config);
    expect(done.answers).toEqual(["a=ok-a", "b=ok-b", "c=ok-c"]);
  });

  it("two parallel runs of one subgraph keep their interrupts apart, through partial maps", async () => {
    const quiz = new StateGraph({ log: channel.append<string>() })
      .addNode("q1", () => ({ log: [`q1:${interrupt<string>("first")}`] }))
      .addNode("q2", () => ({ log: [`q2:${interrupt<string>("second")}`] }))
      .addEdge(START, "q1")
      .addEdge("q1", "q2")
      .compile();
    const graph = new StateGraph({ log: channel.append<string>() })
      .addNode("left", quiz)
      .addNode("right", quiz)
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "sub-par" };
    const answer = (i: Interrupt) => `${i.namespace.split(":")[0]}-${String(i.value)}`;
    const first = await graph.invoke({}, config);
    expect(first.__interrupt__?.map((i) => [i.namespace.split(":")[0], i.value])).toEqual([
      ["left", "first"],
      ["right", "first"],
    ]);
    expect(new Set(ids(first.__interrupt__)).size).toBe(2);
    const left = first.__interrupt__?.[0] as Interrupt;
    const second = await graph.invoke(new Command({ resume: { [left.id]: answer(left) } }), config);
    // left moved on to its second question; right still waits on its first, with the same id.
    expect(second.__interrupt__?.map((i) => [i.namespace.split(":")[0], i.value])).toEqual([
      ["left", "second"],
      ["right", "first"],
    ]);
    expect(second.__interrupt__?.[1]?.id).toBe(first.__interrupt__?.[1]?.id);
    let result = second;
    for (let guard = 0; result.__interrupt__ && guard < 5; guard++) {
      const map = Object.fromEntries(result.__interrupt__.map((i) => [i.id, answer(i)]));
      result = await graph.invoke(new Command({ resume: map }), config);
    }
    expect(result).toEqual({ log: ["q1:left-first", "q2:left-second", "q1:right-first", "q2:right-second"] });
  });

  it("run() reports an interrupted run as data", async () => {
    const { graph } = panel(new MemorySaver());
    const result = await graph.run({}, { threadId: "p4" });
    expect(result.status).toBe("interrupted");
    if (result.status !== "interrupted") return;
    expect(result.interrupts).toHaveLength(2);
    expect(result.next.sort()).toEqual(["legal", "quick", "safety"]);
    expect(result.checkpointId).toBe((await graph.getState({ threadId: "p4" })).checkpointId);
  });

  it("the updates stream carries the interrupts", async () => {
    const { graph } = panel(new MemorySaver());
    const chunks: Record<string, unknown>[] = [];
    for await (const c of graph.stream({}, { threadId: "p5", streamMode: "updates" }))
      chunks.push(c as Record<string, unknown>);
    const last = chunks.at(-1) as { __interrupt__?: Interrupt[] };
    expect(last.__interrupt__?.map((i) => i.node).sort()).toEqual(["legal", "safety"]);
  });
});

describe("static breakpoints", () => {
  function chain(saver: MemorySaver, options: { interruptBefore?: string[] | "*"; interruptAfter?: string[] | "*" }) {
    const ran: string[] = [];
    const node = (name: string) => () => {
      ran.push(name);
      return { log: [name] };
    };
    const graph = new StateGraph({ log: channel.append<string>() })
      .addNode("a", node("a"))
      .addNode("b", node("b"))
      .addNode("c", node("c"))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .compile({ checkpointer: saver, ...options });
    return { graph, ran };
  }

  it("interruptBefore pauses before the node; invoke(null) runs it", async () => {
    const { graph, ran } = chain(new MemorySaver(), { interruptBefore: ["b"] });
    const config = { threadId: "before" };
    const paused = await graph.invoke({}, config);
    expect(paused).toEqual({ log: ["a"] });
    expect(paused.__interrupt__).toBeUndefined();
    const state = await graph.getState(config);
    expect(state.next).toEqual(["b"]);
    expect(state.interrupts).toEqual([]);
    expect(ran).toEqual(["a"]);
    expect(await graph.invoke(null, config)).toEqual({ log: ["a", "b", "c"] });
    expect(ran).toEqual(["a", "b", "c"]);
  });

  it("interruptAfter pauses after the node with its writes applied", async () => {
    const { graph, ran } = chain(new MemorySaver(), { interruptAfter: ["a", "b"] });
    const config = { threadId: "after" };
    expect(await graph.invoke({}, config)).toEqual({ log: ["a"] });
    expect((await graph.getState(config)).next).toEqual(["b"]);
    expect(await graph.invoke(null, config)).toEqual({ log: ["a", "b"] });
    expect((await graph.getState(config)).next).toEqual(["c"]);
    expect(await graph.invoke(null, config)).toEqual({ log: ["a", "b", "c"] });
    expect(ran).toEqual(["a", "b", "c"]);
  });

  it('"*" pauses before every node', async () => {
    const { graph, ran } = chain(new MemorySaver(), { interruptBefore: "*" });
    const config = { threadId: "star" };
    await graph.invoke({}, config);
    expect(ran).toEqual([]);
    for (const expected of [["a"], ["a", "b"], ["a", "b", "c"]]) {
      await graph.invoke(null, config);
      expect(ran).toEqual(expected);
    }
    expect((await graph.getState(config)).next).toEqual([]);
  });

  it("per-run breakpoints add to the compiled ones", async () => {
    const { graph, ran } = chain(new MemorySaver(), {});
    const config = { threadId: "per-run" };
    await graph.invoke({}, { ...config, interruptBefore: ["c"] });
    expect(ran).toEqual(["a", "b"]);
    await graph.invoke(null, config);
    expect(ran).toEqual(["a", "b", "c"]);
  });

  it("a new input while paused starts the thread over from START", async () => {
    const { graph, ran } = chain(new MemorySaver(), { interruptBefore: ["b"] });
    const config = { threadId: "restart" };
    await graph.invoke({}, config);
    const again = await graph.invoke({ log: ["new"] }, config);
    expect(again).toEqual({ log: ["a", "new", "a"] });
    expect(ran).toEqual(["a", "a"]);
    expect((await graph.getState(config)).next).toEqual(["b"]);
  });

  it("a pending interrupt() and a breakpoint on the same node resume with one Command", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ answer: channel.value("") })
      .addNode("ask", () => ({ answer: interrupt<string>("?") }))
      .addNode("next", () => ({}))
      .addEdge(START, "ask")
      .addEdge("ask", "next")
      .compile({ checkpointer: saver, interruptBefore: ["ask", "next"] });
    const config = { threadId: "both" };
    await graph.invoke({}, config);
    expect((await graph.getState(config)).next).toEqual(["ask"]);
    const paused = await graph.invoke(null, config);
    expect(paused.__interrupt__).toHaveLength(1);
    const resumed = await graph.invoke(new Command({ resume: "42" }), config);
    expect(resumed).toEqual({ answer: "42" });
    expect((await graph.getState(config)).next).toEqual(["next"]);
  });
});

describe("durability modes", () => {
  const build = (saver: MemorySaver) =>
    new StateGraph({ log: channel.append<string>() })
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("ask", () => ({ log: [`ask:${interrupt<string>("q")}`] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "ask")
      .addEdge("ask", "b")
      .compile({ checkpointer: saver });

  it.each(["sync", "async", "exit"] as const)(
    "%s: pause, then resume from another graph instance",
    async (durability) => {
      const saver = new MemorySaver();
      const config = { threadId: "d", durability };
      const paused = await build(saver).invoke({}, config);
      expect(paused.__interrupt__?.map((i) => i.value)).toEqual(["q"]);
      const stored = await build(saver).getState(config);
      expect(stored.interrupts.map((i) => i.id)).toEqual(ids(paused.__interrupt__));
      const done = await build(saver).invoke(new Command({ resume: "x" }), config);
      expect(done).toEqual({ log: ["a", "ask:x", "b"] });
      const steps: number[] = [];
      for await (const s of build(saver).getStateHistory(config)) steps.push(s.metadata?.step as number);
      // "exit" stores one checkpoint per run; the others one per step.
      expect(steps).toEqual(durability === "exit" ? [2, 0] : [2, 1, 0, -1]);
    },
  );
});

describe("resuming where nothing is pending", () => {
  it("continues a thread paused at a static breakpoint, as LangGraph does", async () => {
    const graph = new StateGraph({ log: channel.append<string>() })
      .addNode("draft", () => ({ log: ["draft"] }))
      .addNode("publish", () => ({ log: ["publish"] }))
      .addEdge(START, "draft")
      .addEdge("draft", "publish")
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"] });
    const config = { threadId: "bp-resume" };
    expect(await graph.invoke({}, config)).toEqual({ log: ["draft"] });
    expect(await graph.invoke(new Command({ resume: "go" }), config)).toEqual({ log: ["draft", "publish"] });
  });
});
