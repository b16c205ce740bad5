import { describe, expect, it } from "vitest";
import { channel, END, Send, START, StateGraph } from "../index.js";
import { promisesDuring } from "../test/promises-during.js";

/** A fan-out of `count` packets to `worker`, whose results an append channel keeps in packet order. */
function fanOut(worker: (arg: { i: number }) => { results: number[] } | Promise<{ results: number[] }>) {
  return new StateGraph({ count: channel.value(0), results: channel.append<number>() })
    .addNode("worker", worker)
    .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, i) => new Send("worker", { i })))
    .addEdge("worker", END)
    .compile();
}

describe("a wide step with nothing to record around its tasks (no saver, no debug stream, no tracing)", () => {
  it("makes three promises a task (the node's own, its outcome's, and Promise.all's), five before: no async frame per task stays alive through the step", async () => {
    const graph = fanOut(async (arg) => ({ results: [arg.i] }));
    await graph.invoke({ count: 10 });
    const narrow = await promisesDuring(() => graph.invoke({ count: 100 }));
    const wide = await promisesDuring(() => graph.invoke({ count: 1100 }));
    expect((wide - narrow) / 1000).toBeLessThanOrEqual(3);
    expect(narrow).toBeGreaterThan(200); // the hook counts the tasks' promises
  });

  it("keeps packet order when synchronous and asynchronous nodes finish in another order", async () => {
    const graph = fanOut((arg) => {
      if (arg.i % 3 === 0) return { results: [arg.i] };
      return new Promise((resolve) => setTimeout(() => resolve({ results: [arg.i] }), (7 - (arg.i % 7)) * 2));
    });
    const out = await graph.invoke({ count: 40 });
    expect(out.results).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it("a cancel while its tasks run rejects the run with RUN_CANCELLED at once, without waiting for them", async () => {
    const controller = new AbortController();
    let started = 0;
    const graph = fanOut((arg) => {
      started++;
      if (started === 50) setTimeout(() => controller.abort(new Error("user left")), 5);
      return new Promise((resolve) => setTimeout(() => resolve({ results: [arg.i] }), 10_000));
    });
    const at = Date.now();
    await expect(graph.invoke({ count: 50 }, { signal: controller.signal })).rejects.toMatchObject({
      code: "RUN_CANCELLED",
    });
    expect(started).toBe(50);
    expect(Date.now() - at).toBeLessThan(5_000);
  });

  it("a synchronous node's error fails the run with it, after its siblings started", async () => {
    let started = 0;
    const graph = fanOut((arg) => {
      started++;
      if (arg.i === 3) throw new Error("packet 3 is malformed");
      return Promise.resolve({ results: [arg.i] });
    });
    await expect(graph.invoke({ count: 8 })).rejects.toThrow("packet 3 is malformed");
    expect(started).toBe(8);
  });
});
