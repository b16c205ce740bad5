/**
 * Objects the runtime makes once per run share one hidden class (V8 "map") from run to run. On V8 (Node
 * 20), an object literal that adds a key after a spread — `{ ...config, recursionLimit }` — takes a slow
 * path once optimized and gives every object it makes a hidden class of its own, so each place that later
 * reads such an object (the run config is read all through a run) sees a new class every run and goes
 * megamorphic: about a fifth of the (e) resume workload's CPU (docs/performance.md). These tests optimize the
 * function that builds the object and compare the classes of two of its objects.
 */
import { setFlagsFromString } from "node:v8";
import { describe, expect, it } from "vitest";
import { normalizeConfig, type RunConfig } from "../runtime/config.js";
import { withTaskId } from "../runtime/resume.js";

setFlagsFromString("--allow-natives-syntax");
const sameClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
const prepare = new Function("f", "%PrepareFunctionForOptimization(f)") as (f: unknown) => void;
const optimizeNext = new Function("f", "%OptimizeFunctionOnNextCall(f)") as (f: unknown) => void;

/** Optimizes `fn` itself, then tells whether two of the objects it makes share a hidden class. */
function shareClass<A extends unknown[]>(fn: (...args: A) => object, make: (i: number) => A): boolean {
  prepare(fn);
  fn(...make(1));
  fn(...make(2));
  optimizeNext(fn);
  fn(...make(3));
  return sameClass(fn(...make(4)), fn(...make(5)));
}

describe("objects made once per run share a hidden class", () => {
  const shapes: Array<[string, (i: number) => [RunConfig]]> = [
    ["a threadId", (i) => [{ threadId: `t${i}` }]],
    ["LangGraph's configurable.thread_id", (i) => [{ configurable: { thread_id: `t${i}` }, recursionLimit: 50 }]],
    ["a threadId and a checkpointId", (i) => [{ threadId: `t${i}`, checkpointId: `c${i}` }]],
    ["no thread", (i) => [{ metadata: { n: i } }]],
  ];
  for (const [what, make] of shapes) {
    it(`normalizeConfig, with ${what}`, () => {
      expect(shareClass(normalizeConfig, make)).toBe(true);
    });
  }

  it("normalizeConfig keeps the caller's keys and its own win", () => {
    const config = normalizeConfig({
      configurable: { thread_id: "t1", checkpoint_id: "c1" },
      durability: "exit",
      metadata: { a: 1 },
    });
    expect(config).toMatchObject({ threadId: "t1", checkpointId: "c1", durability: "exit", recursionLimit: 25 });
    expect(config.metadata).toEqual({ a: 1 });
    expect(normalizeConfig({ threadId: "t2", configurable: { thread_id: "other" } }).threadId).toBe("t2");
  });

  it("an interrupt with its task id", () => {
    const made = shareClass(withTaskId, (i): [object, string] => [{ id: `i${i}`, value: i }, `task-${i}`]);
    expect(made).toBe(true);
    expect(withTaskId({ id: "i1", value: 1, taskId: "old" }, "new").taskId).toBe("new");
  });
});
