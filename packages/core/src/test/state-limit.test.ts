/** `maxStateBytes`: a state too large is refused before anything of its step is written. */
import { describe, expect, it } from "vitest";
import { channel, MemorySaver, START, StateGraph, TrellisError } from "../index.js";
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
