/**
 * Input and output schemas as subsets of the state (LangGraph's `input` / `output` on StateGraph):
 * `getSchemas()` shows only those keys, a run's input may set only the input keys, and a run returns
 * only the output keys; the thread's state keeps every key.
 */
import { describe, expect, it } from "vitest";
import {
  Command,
  channel,
  END,
  GraphValidationError,
  InvalidUpdateError,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
} from "../index.js";

function authorGraph(saver = new MemorySaver()) {
  return new StateGraph(
    {
      topic: channel.value(""),
      draft: channel.value(""),
      revisions: channel.value(0),
      status: channel.value("new"),
    },
    { name: "author", input: ["topic"], output: ["draft", "status"] },
  )
    .addNode("write", (s) => ({ draft: `About ${s.topic}`, revisions: s.revisions + 1, status: "drafted" }))
    .addNode("review", () => ({ status: interrupt<string>("ok?") }))
    .addEdge(START, "write")
    .addEdge("write", "review")
    .addEdge("review", END)
    .compile({ checkpointer: saver });
}

describe("input and output schemas", () => {
  it("getSchemas lists only the input keys as input and the output keys as output; state has all", () => {
    const schemas = authorGraph().getSchemas();
    expect(Object.keys(schemas.input.properties as object)).toEqual(["topic"]);
    expect(Object.keys(schemas.output.properties as object)).toEqual(["draft", "status"]);
    expect(Object.keys(schemas.state.properties as object)).toEqual(["topic", "draft", "revisions", "status"]);
    expect(authorGraph().inputKeys).toEqual(["topic"]);
  });

  it("refuses a run input that sets a key outside the input keys, naming it; nothing is stored", async () => {
    const saver = new MemorySaver();
    const graph = authorGraph(saver);
    // @ts-expect-error revisions is not an input key: the compiler refuses it too
    const refused = graph.invoke({ topic: "ladders", revisions: 5 }, { threadId: "t1" });
    await expect(refused).rejects.toThrow(InvalidUpdateError);
    await expect(refused).rejects.toThrow(/"revisions".*input keys are topic/);
    expect((await graph.getState({ threadId: "t1" })).values.revisions).toBe(0);
    expect(() => graph.checkInput(undefined, { status: "done" })).toThrow(/"status"/);
    // a Command's update and updateState may set any key
    expect(() => graph.checkInput(undefined, { status: "done" }, "command")).not.toThrow();
  });

  it("returns only the output keys from invoke and run; the thread's state keeps every key", async () => {
    const graph = authorGraph();
    const paused = await graph.invoke({ topic: "ladders" }, { threadId: "t2" });
    expect(Object.keys(paused).sort()).toEqual(["__interrupt__", "draft", "status"]);
    // @ts-expect-error the result has only the output keys
    expect(paused.revisions).toBeUndefined();
    const done = await graph.run(new Command({ resume: "approved" }), { threadId: "t2" });
    expect(done.status).toBe("done");
    if (done.status === "done") expect(done.values).toEqual({ draft: "About ladders", status: "approved" });
    const state = await graph.getState({ threadId: "t2" });
    expect(state.values).toEqual({ topic: "ladders", draft: "About ladders", revisions: 1, status: "approved" });
  });

  it("a subgraph node takes only its input keys and hands back only its output keys", async () => {
    const child = new StateGraph(
      { topic: channel.value(""), draft: channel.value(""), seen: channel.value("") },
      { input: ["topic"], output: ["draft"] },
    )
      .addNode("write", (s) => ({ draft: `About ${s.topic}`, seen: `child saw "${s.seen}"` }))
      .addEdge(START, "write")
      .compile();
    const parent = new StateGraph({ topic: channel.value(""), draft: channel.value(""), seen: channel.value("parent") })
      .addNode("child", child)
      .addEdge(START, "child")
      .compile({ checkpointer: new MemorySaver() });
    expect(await parent.invoke({ topic: "ropes" }, { threadId: "t3" })).toEqual({
      topic: "ropes",
      draft: "About ropes",
      seen: "parent",
    });
    const inner = await parent.getState({ threadId: "t3" }, { subgraphs: true });
    expect(inner.values.seen).toBe("parent");
  });

  it("refuses input or output keys that are not state keys, at build time", () => {
    const schema = { topic: channel.value("") };
    expect(() => new StateGraph(schema, { input: ["topc" as "topic"] })).toThrow(GraphValidationError);
    expect(() => new StateGraph(schema, { output: ["nope" as "topic"] })).toThrow(/"nope".*State keys: topic/);
  });
});
