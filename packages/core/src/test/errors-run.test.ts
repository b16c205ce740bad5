/**
 * Errors of running a graph: routes, resumes, missing thread or checkpointer. Each test checks the
 * class, the code, and that the message names what went wrong.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  InvalidRouteError,
  InvalidUpdateError,
  interrupt,
  MemorySaver,
  ResumeError,
  Send,
  START,
  StateGraph,
  TrellisError,
} from "../index.js";
import { caught, noop } from "./caught.js";

describe("InvalidRouteError", () => {
  it("a key that is not in the path map names the router and the key", async () => {
    const graph = new StateGraph({ verdict: channel.value("") })
      .addNode("review", noop)
      .addNode("deploy", noop)
      .addEdge(START, "review")
      .addConditionalEdges(
        "review",
        function routeFromReview(s) {
          return s.verdict;
        },
        { passed: "deploy", failed: END },
      )
      .compile();
    const e = await caught(() => graph.invoke({ verdict: "needs_revision" }), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain("routeFromReview");
    expect(e.message).toContain('"review"');
    expect(e.message).toContain('"needs_revision"');
    expect(e.message).toContain('"passed"');
    expect(e.details).toMatchObject({ router: expect.stringContaining("routeFromReview"), key: "needs_revision" });
  });

  it("an anonymous router is named by the node it leaves", async () => {
    const graph = new StateGraph({ verdict: channel.value("") })
      .addNode("review", noop)
      .addEdge(START, "review")
      .addConditionalEdges("review", () => "maybe", { yes: END })
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain('of "review"');
    expect(e.message).toContain('"maybe"');
  });

  it("one bad key in a list of keys is reported", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addNode("b", noop)
      .addEdge(START, "a")
      .addConditionalEdges(
        "a",
        function fan() {
          return ["b", "c"];
        },
        { b: "b" },
      )
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain('"c"');
    expect(e.message).toContain("fan");
  });

  it("without a path map, a name that is not a node is reported", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addNode("b", noop)
      .addEdge(START, "a")
      .addConditionalEdges("a", function pick() {
        return "bee";
      })
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain("pick");
    expect(e.message).toContain('"bee"');
  });

  it("a router returning something that is not a name is reported", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addEdge(START, "a")
      .addConditionalEdges("a", function broken() {
        return 42;
      })
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain("broken");
    expect(e.message).toContain("42");
  });

  it("Command goto to a node that does not exist names the node and the target", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("handoff", () => new Command({ goto: "reportng-agent" }))
      .addEdge(START, "handoff")
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain('"handoff"');
    expect(e.message).toContain('"reportng-agent"');
  });

  it("a Send to a node that does not exist is reported", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", noop)
      .addEdge(START, "a")
      .addConditionalEdges("a", () => [new Send("nope", {})])
      .compile();
    const e = await caught(() => graph.invoke({}), InvalidRouteError, "INVALID_ROUTE");
    expect(e.message).toContain('"nope"');
  });
});

describe("ResumeError", () => {
  function twoAsks(saver: MemorySaver) {
    return new StateGraph({ answers: channel.append<string>() })
      .addNode("left", () => ({ answers: [`L:${interrupt<string>("left?")}`] }))
      .addNode("right", () => ({ answers: [`R:${interrupt<string>("right?")}`] }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .compile({ checkpointer: saver });
  }

  it("a resume map that matches no pending interrupt names the ids", async () => {
    const graph = twoAsks(new MemorySaver());
    const config = { threadId: "r1" };
    const paused = await graph.invoke({}, config);
    const pending = (paused.__interrupt__ ?? []).map((i) => i.id);
    expect(pending).toHaveLength(2);
    const bogus = "0".repeat(32);
    const e = await caught(
      () => graph.invoke(new Command({ resume: { [bogus]: "x" } }), config),
      ResumeError,
      "RESUME_MISMATCH",
    );
    expect(e.message).toContain(bogus);
    for (const id of pending) expect(e.message).toContain(id);
    expect(e.message).toContain('"r1"');
  });

  it("a map with one good and one unknown id is refused as a whole", async () => {
    const graph = twoAsks(new MemorySaver());
    const config = { threadId: "r2" };
    const paused = await graph.invoke({}, config);
    const [first] = paused.__interrupt__ ?? [];
    const bogus = "f".repeat(32);
    await caught(
      () => graph.invoke(new Command({ resume: { [first?.id as string]: "a", [bogus]: "b" } }), config),
      ResumeError,
      "RESUME_MISMATCH",
    );
    expect((await graph.getState(config)).interrupts).toHaveLength(2);
  });

  it("a single value with several interrupts pending is ambiguous and lists them", async () => {
    const graph = twoAsks(new MemorySaver());
    const config = { threadId: "r3" };
    const paused = await graph.invoke({}, config);
    const e = await caught(() => graph.invoke(new Command({ resume: "yes" }), config), ResumeError, "AMBIGUOUS_RESUME");
    expect(e.message).toContain("2 pending interrupts");
    for (const i of paused.__interrupt__ ?? []) expect(e.message).toContain(i.id);
    expect(e.message).toContain('"left"');
    expect(e.message).toContain('"right"');
  });

  it("resuming a thread where nothing is pending", async () => {
    const saver = new MemorySaver();
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", (s) => ({ x: s.x + 1 }))
      .addEdge(START, "a")
      .compile({ checkpointer: saver });
    const e1 = await caught(
      () => graph.invoke(new Command({ resume: 1 }), { threadId: "fresh" }),
      ResumeError,
      "NOTHING_TO_RESUME",
    );
    expect(e1.message).toContain('"fresh"');
    const e2 = await caught(() => graph.invoke(null, { threadId: "fresh" }), ResumeError, "NOTHING_TO_RESUME");
    expect(e2.message).toContain('"fresh"');
    await graph.invoke({}, { threadId: "done" });
    await caught(
      () => graph.invoke(new Command({ resume: 1 }), { threadId: "done" }),
      ResumeError,
      "NOTHING_TO_RESUME",
    );
  });

  it("a refused first run leaves no checkpoint behind", async () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", (s) => ({ x: s.x + 1 }))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    const config = { threadId: "refused" };
    await caught(() => graph.invoke(new Command({ resume: 1 }), config), ResumeError, "NOTHING_TO_RESUME");
    await caught(() => graph.invoke({ y: 1 } as never, config), InvalidUpdateError, "UNKNOWN_STATE_KEY");
    const state = await graph.getState(config);
    expect(state.checkpointId).toBeUndefined();
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    expect(history).toEqual([]);
    await caught(() => graph.invoke(null, config), ResumeError, "NOTHING_TO_RESUME");
  });
});

describe("THREAD_REQUIRED and CHECKPOINTER_REQUIRED", () => {
  const schema = { x: channel.value(0) };
  const withSaver = () =>
    new StateGraph(schema)
      .addNode("a", noop)
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver(), name: "saved" });
  const withoutSaver = () =>
    new StateGraph(schema)
      .addNode("ask", () => {
        interrupt("why?");
      })
      .addEdge(START, "ask")
      .compile({ name: "unsaved" });

  it("a graph with a checkpointer needs a thread for every run and state call", async () => {
    const graph = withSaver();
    const e = await caught(() => graph.invoke({}), TrellisError, "THREAD_REQUIRED");
    expect(e.message).toContain("threadId");
    expect(e.message).toContain("thread_id");
    expect(e.message).toContain('"saved"');
    await caught(() => graph.invoke({}, { configurable: {} }), TrellisError, "THREAD_REQUIRED");
    const s = await caught(() => graph.getState({}), TrellisError, "THREAD_REQUIRED");
    expect(s.message).toContain("getState");
    const u = await caught(() => graph.updateState({}, { x: 1 }), TrellisError, "THREAD_REQUIRED");
    expect(u.message).toContain("updateState");
    const h = await caught(() => graph.getStateHistory({}).next(), TrellisError, "THREAD_REQUIRED");
    expect(h.message).toContain("getStateHistory");
  });

  it("interrupt() without a checkpointer names the node", async () => {
    const e = await caught(() => withoutSaver().invoke({}), TrellisError, "CHECKPOINTER_REQUIRED");
    expect(e.message).toContain('"ask"');
    expect(e.message).toContain("checkpointer");
  });

  it("state calls without a checkpointer name the call and the graph", async () => {
    const graph = withoutSaver();
    const s = await caught(() => graph.getState({ threadId: "t" }), TrellisError, "CHECKPOINTER_REQUIRED");
    expect(s.message).toContain("getState");
    expect(s.message).toContain('"unsaved"');
    const u = await caught(() => graph.updateState({ threadId: "t" }, { x: 1 }), TrellisError, "CHECKPOINTER_REQUIRED");
    expect(u.message).toContain("updateState");
    await caught(() => graph.getStateHistory({ threadId: "t" }).next(), TrellisError, "CHECKPOINTER_REQUIRED");
  });

  it("interrupt() outside a node says so", async () => {
    const e = await caught(() => interrupt("x"), TrellisError, "INVALID_CONFIG");
    expect(e.message).toContain("outside a running graph node");
  });

  it("a second run on a busy thread is refused with THREAD_BUSY", async () => {
    const graph = new StateGraph({ n: channel.value(0) })
      .addNode("slow", async (s) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { n: s.n + 1 };
      })
      .addEdge(START, "slow")
      .compile({ checkpointer: new MemorySaver() });
    const first = graph.invoke({}, { threadId: "busy" });
    const e = await caught(() => graph.invoke({}, { threadId: "busy" }), TrellisError, "THREAD_BUSY");
    expect(e.message).toContain('"busy"');
    expect(await first).toEqual({ n: 1 });
    expect(await graph.invoke({}, { threadId: "busy" })).toEqual({ n: 2 });
  });

  it("a checkpoint id the thread does not have is CHECKPOINT_NOT_FOUND", async () => {
    const graph = withSaver();
    await graph.invoke({}, { threadId: "t" });
    const e = await caught(
      () => graph.invoke(null, { configurable: { thread_id: "t", checkpoint_id: "nope" } }),
      TrellisError,
      "CHECKPOINT_NOT_FOUND",
    );
    expect(e.message).toContain("nope");
  });
});
