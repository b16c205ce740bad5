/**
 * Errors of graph definitions and node writes: validation, invalid updates, recursion. Each test
 * checks the class, the code, and that the message names what went wrong.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  GraphRecursionError,
  GraphValidationError,
  InvalidUpdateError,
  interrupt,
  MemorySaver,
  Send,
  START,
  StateGraph,
  TrellisError,
} from "../index.js";
import { caught, noop } from "./caught.js";

describe("GraphValidationError", () => {
  it("an edge to something that is not a node names both ends", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("fetch", noop)
      .addEdge(START, "fetch")
      .addEdge("fetch", "parse");
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"fetch"');
    expect(e.message).toContain('"parse"');
    expect(e.message).toMatch(/not a node/);
    expect(e.details).toMatchObject({ from: "fetch", to: "parse" });
  });

  it("an edge from something that is not a node names it", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addEdge(START, "a")
      .addEdge("ghost", "a");
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"ghost"');
    expect(e.message).toMatch(/not a node/);
  });

  it("a near miss suggests the node that was meant", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("plan_approval", noop)
      .addEdge(START, "plan_approval")
      .addEdge("plan_approval", "planApproval");
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('Did you mean "plan_approval"?');
  });

  it("a path-map target that is not a node names the branch, key and target", async () => {
    const builder = new StateGraph({ ok: channel.value(true) })
      .addNode("review", noop)
      .addNode("deploy", noop)
      .addEdge(START, "review")
      .addConditionalEdges("review", (s) => (s.ok ? "passed" : "failed"), { passed: "deploy", failed: "end_failure" });
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"review"');
    expect(e.message).toContain('"failed"');
    expect(e.message).toContain('"end_failure"');
    expect(e.details).toMatchObject({ from: "review", key: "failed", to: "end_failure" });
  });

  it("a conditional edge from something that is not a node names it", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addEdge(START, "a")
      .addConditionalEdges("nowhere", () => END);
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"nowhere"');
  });

  it("a duplicate node name is refused when added", async () => {
    const builder = new StateGraph({ x: channel.value(0) }).addNode("review", noop);
    const e = await caught(() => builder.addNode("review", noop), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"review"');
    expect(e.message).toMatch(/already exists/);
  });

  it.each([START, END, "__interrupt__", "__input__"])("the reserved name %s cannot name a node", async (name) => {
    const builder = new StateGraph({ x: channel.value(0) });
    const e = await caught(() => builder.addNode(name, noop), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain(`"${name}"`);
    expect(e.message).toMatch(/reserved/);
  });

  it.each(["a|b", "a:b", ""])("the name %j is refused", async (name) => {
    const builder = new StateGraph({ x: channel.value(0) });
    await caught(() => builder.addNode(name, noop), GraphValidationError, "GRAPH_VALIDATION");
  });

  it("a node nothing leads to is named", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addNode("orphan", noop)
      .addEdge(START, "a")
      .addEdge("a", END)
      .addEdge("orphan", END);
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"orphan"');
    expect(e.message).not.toContain('"a"');
    expect(e.details).toMatchObject({ nodes: ["orphan"] });
  });

  it("a cycle that nothing enters is unreachable as a whole", async () => {
    const builder = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addNode("loop1", noop)
      .addNode("loop2", noop)
      .addEdge(START, "a")
      .addEdge("loop1", "loop2")
      .addEdge("loop2", "loop1");
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toContain('"loop1"');
    expect(e.message).toContain('"loop2"');
  });

  it("a node reached only through a path map or `ends` is reachable", () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", () => new Command({ goto: "c" }), { ends: ["c"] })
      .addNode("b", noop)
      .addNode("c", noop)
      .addConditionalEdges(START, () => "go", { go: "a", other: "b" });
    expect(() => graph.compile()).not.toThrow();
  });

  it("no entry point says how to add one", async () => {
    const builder = new StateGraph({ x: channel.value(0) }).addNode("a", noop).addEdge("a", END);
    const e = await caught(() => builder.compile(), GraphValidationError, "GRAPH_VALIDATION");
    expect(e.message).toMatch(/no entry point/);
    expect(e.message).toContain("setEntryPoint");
  });

  it("an empty graph is refused", async () => {
    await caught(() => new StateGraph({ x: channel.value(0) }).compile(), GraphValidationError, "GRAPH_VALIDATION");
  });

  it("a breakpoint on a node that does not exist is named", async () => {
    const builder = new StateGraph({ x: channel.value(0) }).addNode("a", noop).addEdge(START, "a");
    const e = await caught(
      () => builder.compile({ interruptBefore: ["approve"] }),
      GraphValidationError,
      "GRAPH_VALIDATION",
    );
    expect(e.message).toContain("interruptBefore");
    expect(e.message).toContain('"approve"');
  });

  it("a schema key that is not a channel is named", async () => {
    const e = await caught(
      () => new StateGraph({ ok: channel.value(0), bad: 5 as never }),
      GraphValidationError,
      "GRAPH_VALIDATION",
    );
    expect(e.message).toContain('"bad"');
  });
});

describe("InvalidUpdateError", () => {
  it("writing an undeclared key names the node and the key", async () => {
    const graph = new StateGraph({ draft: channel.value("") })
      .addNode("writer", () => ({ draft: "x", drfat: "typo" }) as never)
      .addEdge(START, "writer")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "UNKNOWN_STATE_KEY");
    expect(e.message).toContain('"writer"');
    expect(e.message).toContain('"drfat"');
    expect(e.details).toMatchObject({ node: "writer", key: "drfat" });
  });

  it("an undeclared key in the input is refused too", async () => {
    const graph = new StateGraph({ draft: channel.value("") }).addNode("w", noop).addEdge(START, "w").compile();
    const e = await caught(() => graph.invoke({ nope: 1 } as never), InvalidUpdateError, "UNKNOWN_STATE_KEY");
    expect(e.message).toContain('"nope"');
  });

  it("an undeclared key in a Command update names the node", async () => {
    const graph = new StateGraph({ draft: channel.value("") })
      .addNode("router", () => new Command({ update: { extra: 1 } as never, goto: END }))
      .addEdge(START, "router")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "UNKNOWN_STATE_KEY");
    expect(e.message).toContain('"router"');
    expect(e.message).toContain('"extra"');
  });

  it.each([
    ["a function", () => 1, /function/],
    ["a class instance", new (class Invoice {})(), /Invoice/],
    ["NaN", Number.NaN, /NaN/],
    ["a symbol", Symbol("s"), /symbol/],
  ])("a value that is %s names the node and the key", async (_what, bad, reason) => {
    const graph = new StateGraph({ payload: channel.value<unknown>(null) })
      .addNode("produce", () => ({ payload: bad }))
      .addEdge(START, "produce")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e.message).toContain('"produce"');
    expect(e.message).toContain('"payload"');
    expect(e.message).toMatch(reason);
    expect(e.details).toMatchObject({ node: "produce" });
  });

  it("a non-plain value deep inside names the path", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const graph = new StateGraph({ payload: channel.value<unknown>(null) })
      .addNode("produce", () => ({ payload: { rows: [1, { when: new Date(), ref: cyclic }] } }))
      .addEdge(START, "produce")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e.message).toContain('"produce"');
    expect(e.message).toContain('"payload"');
    expect(e.message).toContain("rows[1].ref.self");
    expect(e.message).toMatch(/cycle/);
  });

  it("a value passed along from the state is checked once per run, but what a node adds to it is checked", async () => {
    // The run remembers the objects it found plain (a wide state passed along by reference is walked
    // once); a new object around them, holding something that is not plain, is still refused.
    const big = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, { rows: [i, i + 1] }]));
    const graph = new StateGraph({ payload: channel.value<unknown>(null), copy: channel.value<unknown>(null) })
      .addNode("pass", (s) => ({ copy: s.payload }))
      .addNode("spoil", (s) => ({ copy: { ...(s.payload as object), k3: { rows: [new (class Invoice {})()] } } }))
      .addEdge(START, "pass")
      .addEdge("pass", "spoil")
      .compile();
    const e = await caught(() => graph.invoke({ payload: big }), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e.message).toContain('"spoil"');
    expect(e.message).toContain("k3.rows[0]");
  });

  it("what one run found plain is not trusted by the next: the caller may change its input in between", async () => {
    const input = { rows: Array.from({ length: 40 }, (_, i) => ({ i })) };
    const graph = new StateGraph({ payload: channel.value<unknown>(null) })
      .addNode("keep", (s) => ({ payload: s.payload }))
      .addEdge(START, "keep")
      .compile();
    await graph.invoke({ payload: input });
    (input.rows[7] as Record<string, unknown>).when = new (class Clock {})();
    const e = await caught(() => graph.invoke({ payload: input }), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e.message).toContain("rows[7].when");
  });

  it("a non-plain interrupt value or Send argument names the node", async () => {
    const saver = new MemorySaver();
    const asks = new StateGraph({ x: channel.value(0) })
      .addNode("ask", () => {
        interrupt({ callback: () => 1 });
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: saver });
    const e1 = await caught(() => asks.invoke({}, { threadId: "t" }), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e1.message).toContain('"ask"');

    const sends = new StateGraph({ x: channel.value(0) })
      .addNode("fan", noop)
      .addNode("worker", noop)
      .addEdge(START, "fan")
      .addConditionalEdges("fan", () => [new Send("worker", { at: new (class Job {})() })], ["worker"])
      .compile();
    const e2 = await caught(() => sends.invoke({}), InvalidUpdateError, "NOT_PLAIN_DATA");
    expect(e2.message).toContain('"worker"');
    expect(e2.message).toContain("Job");
  });

  it("a node returning something that is not an update names the node", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("odd", () => [1, 2] as never)
      .addEdge(START, "odd")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "INVALID_UPDATE");
    expect(e.message).toContain('"odd"');
    expect(e.message).toContain("an array");
  });

  it("two writes to a value key in one superstep name the key and both nodes", async () => {
    const graph = new StateGraph({ status: channel.value(""), log: channel.append<string>() })
      .addNode("checker", () => ({ status: "ok", log: ["checker"] }))
      .addNode("linter", () => ({ status: "bad", log: ["linter"] }))
      .addEdge(START, "checker")
      .addEdge(START, "linter")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidUpdateError, "INVALID_UPDATE");
    expect(e.message).toContain('"status"');
    expect(e.message).toContain('"checker"');
    expect(e.message).toContain('"linter"');
    expect(e.details).toMatchObject({ key: "status" });
    expect([...(e.details.nodes as string[])].sort()).toEqual(["checker", "linter"]);
  });

  it("the same two nodes writing a reducer key is fine", async () => {
    const graph = new StateGraph({
      log: channel.append<string>(),
      n: channel.reduce((a: number, b: number) => a + b, 0),
    })
      .addNode("a", () => ({ log: ["a"], n: 1 }))
      .addNode("b", () => ({ log: ["b"], n: 2 }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    expect(await graph.invoke({})).toEqual({ log: ["a", "b"], n: 3 });
  });

  it("after the conflict the thread still stands at its last checkpoint", async () => {
    const saver = new MemorySaver();
    let runs = 0;
    const graph = new StateGraph({ status: channel.value("") })
      .addNode("a", () => ({ status: "a" }))
      .addNode("b", () => {
        runs++;
        return { status: "b" };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: saver });
    const config = { threadId: "clash" };
    await caught(() => graph.invoke({ status: "start" }, config), InvalidUpdateError, "INVALID_UPDATE");
    const state = await graph.getState(config);
    expect(state.values.status).toBe("start");
    expect(state.next.sort()).toEqual(["a", "b"]);
    // Both tasks finished, so their writes are recorded and replayed: the conflict is deterministic.
    await caught(() => graph.invoke(null, config), InvalidUpdateError, "INVALID_UPDATE");
    expect(runs).toBe(1);
    // The way out is a state update.
    await graph.updateState(config, { status: "resolved" }, "a");
    expect(await graph.invoke(null, config)).toEqual({ status: "resolved" });
  });
});

describe("GraphRecursionError", () => {
  function pingPong(saver?: MemorySaver) {
    const ran: string[] = [];
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("ping", (s) => {
        ran.push("ping");
        return { n: s.n + 1 };
      })
      .addNode("pong", (s) => {
        ran.push("pong");
        return { n: s.n + 1 };
      })
      .addEdge(START, "ping")
      .addEdge("ping", "pong")
      .addConditionalEdges("pong", (s) => (s.n >= 1000 ? END : "ping"))
      .compile(saver ? { checkpointer: saver, name: "ping_pong" } : { name: "ping_pong" });
    return { graph, ran };
  }

  it("stops at 25 supersteps by default and names the looping nodes", async () => {
    const { graph, ran } = pingPong();
    const e = await caught(() => graph.invoke({}), GraphRecursionError, "GRAPH_RECURSION");
    expect(ran).toHaveLength(25);
    expect(e.message).toContain("recursion limit of 25");
    expect(e.message).toContain('"ping_pong"');
    expect(e.message).toContain('"ping"');
    expect(e.message).toContain('"pong"');
    expect(e.message).toContain("recursionLimit");
    expect(e.details).toMatchObject({ limit: 25 });
    expect([...(e.details.looping as string[])].sort()).toEqual(["ping", "pong"]);
  });

  it("honours a per-run recursionLimit, lower or higher", async () => {
    const { graph, ran } = pingPong();
    const e = await caught(() => graph.invoke({}, { recursionLimit: 4 }), GraphRecursionError, "GRAPH_RECURSION");
    expect(ran).toHaveLength(4);
    expect(e.message).toContain("recursion limit of 4");
    const { graph: g2 } = pingPong();
    expect(await g2.invoke({ n: 960 }, { recursionLimit: 40 })).toEqual({ n: 1000 });
  });

  it("allows exactly recursionLimit supersteps", async () => {
    const chain = (length: number) => {
      let builder = new StateGraph({ n: channel.value(0) });
      for (let i = 0; i < length; i++) builder = builder.addNode(`n${i}`, (s) => ({ n: s.n + 1 }));
      builder = builder.addEdge(START, "n0");
      for (let i = 1; i < length; i++) builder = builder.addEdge(`n${i - 1}`, `n${i}`);
      return builder.compile();
    };
    expect(await chain(25).invoke({})).toEqual({ n: 25 });
    const e = await caught(() => chain(26).invoke({}), GraphRecursionError, "GRAPH_RECURSION");
    expect(e.message).toContain("recursion limit of 25");
    expect(await chain(26).invoke({}, { recursionLimit: 26 })).toEqual({ n: 26 });
  });

  it("counts per run: the thread can be continued past the limit", async () => {
    const saver = new MemorySaver();
    const { graph } = pingPong(saver);
    const config = { threadId: "rec" };
    await caught(() => graph.invoke({ n: 900 }, config), GraphRecursionError, "GRAPH_RECURSION");
    const state = await graph.getState(config);
    expect(state.values.n).toBe(925);
    expect(state.next).toEqual(["pong"]);
    expect(await graph.invoke(null, { ...config, recursionLimit: 75 })).toEqual({ n: 1000 });
  });

  it.each([0, -1, 1.5])("rejects recursionLimit %s", async (limit) => {
    const { graph } = pingPong();
    const e = await caught(() => graph.invoke({}, { recursionLimit: limit }), TrellisError, "INVALID_CONFIG");
    expect(e.message).toContain("recursionLimit");
  });
});
