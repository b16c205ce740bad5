import { describe, expect, it } from "vitest";
import type { Run } from "./api-types.js";
import { durationText, runWaterfall } from "./run-waterfall.js";

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const task = (node: string, step: number, start: number, end: number | null, extra: object = {}) => ({
  node,
  task_id: `${node}-${step}`,
  step,
  started_at: at(start),
  ended_at: end === null ? null : at(end),
  duration_ms: end === null ? null : end - start,
  ...extra,
});
const run = (id: string, created: number, metadata: Record<string, unknown>): Run =>
  ({ run_id: id, thread_id: "t", status: "success", created_at: at(created), metadata }) as unknown as Run;

describe("a run's waterfall in the studio", () => {
  it("places each task of the newest timed run by start and duration, with its node's tokens on its first row", () => {
    const w = runWaterfall([
      run("old", 0, { timeline: { tasks: [task("x", 0, 0, 10)] } }),
      run("new", 100, {
        timeline: {
          tasks: [task("plan", 0, 0, 100), task("write", 1, 100, 400, { error: "boom" }), task("write", 2, 400, null)],
        },
        usage: { by_node: { write: { total_tokens: 1200, calls: 2 } } },
      }),
      run("untimed", 200, {}),
    ]);
    expect(w?.runId).toBe("new");
    expect(w?.spanMs).toBe(400);
    expect(w?.rows.map((r) => [r.node, r.offsetPct, r.widthPct, r.status])).toEqual([
      ["plan", 0, 25, "done"],
      ["write", 25, 75, "error"],
      ["write", 100, 0, "unfinished"],
    ]);
    expect(w?.rows[1]?.tokens).toEqual({ total: 1200, calls: 2, tasks: 2 });
    expect(w?.rows[2]).not.toHaveProperty("tokens");
  });

  it("shows the run picked, newest first in the list of timed runs", () => {
    const runs = [
      run("a", 0, { timeline: { tasks: [task("x", 0, 0, 10)] } }),
      run("b", 100, { timeline: { tasks: [task("y", 0, 0, 10), task("z", 1, 10, 30)] } }),
    ];
    expect(runWaterfall(runs, "a")?.rows.map((r) => r.node)).toEqual(["x"]);
    expect(runWaterfall(runs, "gone")?.runId).toBe("b");
  });

  it("has nothing to show for runs without a timeline", () => {
    expect(runWaterfall([run("r", 0, {})])).toBeUndefined();
  });

  it("labels durations in ms under a second, in seconds above", () => {
    expect([durationText(12), durationText(1530), durationText(null)]).toEqual(["12 ms", "1.53 s", "—"]);
  });
});
