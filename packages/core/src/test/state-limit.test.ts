/**
 * Input checked before it is written: `maxStateBytes` (a state too large) and `validateState` (the
 * graph's own check of what an input or update makes of the state).
 */
import { describe, expect, it } from "vitest";
import { Command, channel, MemorySaver, START, StateGraph, TrellisError } from "../index.js";
import { caught } from "./caught.js";

function grower() {
  const saver = new MemorySaver();
  const graph = new StateGraph({ size: channel.value(0), blob: channel.value("") })
    .addNode("grow", (s) => ({ blob: "x".repeat(s.size) }))
    .addEdge(START, "grow")
    .compile({ checkpointer: saver });
  return { graph, saver };
}

async function checkpoints(graph: ReturnType<typeof grower>["graph"], threadId: string) {
  const all = [];
  for await (const s of graph.getStateHistory({ threadId })) all.push(s);
  return all;
}

describe("maxStateBytes", () => {
  it("a step that would grow the state past the limit fails with PAYLOAD_TOO_LARGE and stores nothing of it", async () => {
    const { graph } = grower();
    const config = { threadId: "big", maxStateBytes: 10_000 };
    const error = await caught(() => graph.invoke({ size: 50_000 }, config), TrellisError, "PAYLOAD_TOO_LARGE");
    expect(error.message).toMatch(/past this run's limit of 10000 bytes/);
    const stored = await checkpoints(graph, "big");
    // the input's checkpoint is there; the grown state never was
    expect(stored.every((s) => JSON.stringify(s.values).length < 10_000)).toBe(true);
    expect((await graph.getState({ threadId: "big" })).values.blob).toBe("");
  });

  it("an input past the limit leaves a new thread empty", async () => {
    const { graph } = grower();
    await caught(
      () => graph.invoke({ blob: "y".repeat(20_000) }, { threadId: "in", maxStateBytes: 1_000 }),
      TrellisError,
      "PAYLOAD_TOO_LARGE",
    );
    expect(await checkpoints(graph, "in")).toHaveLength(0);
  });

  it("within the limit, nothing changes", async () => {
    const { graph } = grower();
    const done = await graph.invoke({ size: 100 }, { threadId: "ok", maxStateBytes: 10_000 });
    expect(done.blob).toHaveLength(100);
  });
});

describe("validateState", () => {
  function gated() {
    const runs = { count: 0 };
    const graph = new StateGraph({ dryRun: channel.value<unknown>(true), done: channel.value(false) })
      .addNode("deploy", (s) => {
        runs.count++;
        return { done: s.dryRun === false };
      })
      .addEdge(START, "deploy")
      .compile({
        checkpointer: new MemorySaver(),
        validateState: (s) => {
          if (typeof s.dryRun !== "boolean") {
            throw new TrellisError(
              "INVALID_ARGUMENT",
              `dryRun must be true or false, got ${JSON.stringify(s.dryRun)}.`,
            );
          }
        },
      });
    return { graph, runs };
  }

  it("an input that makes the state invalid is refused before anything is written or run", async () => {
    const { graph, runs } = gated();
    await caught(() => graph.invoke({ dryRun: "no" }, { threadId: "v1" }), TrellisError, "INVALID_ARGUMENT");
    expect(runs.count).toBe(0);
    expect(await checkpoints(graph as never, "v1")).toHaveLength(0);
    expect(() => graph.checkInput(undefined, { dryRun: "no" })).toThrow(/dryRun must be true or false/);
    expect(() => graph.checkInput(undefined, { dryRun: false })).not.toThrow();
  });

  it("a Command's update is checked the same way; node writes are not", async () => {
    const { graph } = gated();
    await graph.invoke({ dryRun: false }, { threadId: "v2" });
    await caught(
      () => graph.invoke(new Command({ update: { dryRun: 3 } }), { threadId: "v2" }),
      TrellisError,
      "INVALID_ARGUMENT",
    );
    expect((await graph.getState({ threadId: "v2" })).values.done).toBe(true);
  });
});
