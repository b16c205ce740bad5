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

  it("draws each task's model and tool calls under it, with the task's tokens summed from its model calls", () => {
    const model = (start: number, ms: number, input: number, output: number, extra: object = {}) => ({
      kind: "model",
      model: "m1",
      provider: "acme",
      started_at: at(start),
      duration_ms: ms,
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
      ...extra,
    });
    const toolCall = (start: number, ms: number, status: string) => ({
      kind: "tool",
      tool: "lookup",
      started_at: at(start),
      duration_ms: ms,
      status,
    });
    const w = runWaterfall([
      run("r", 0, {
        timeline: {
          tasks: [
            task("agent", 0, 0, 100, { calls: [model(10, 80, 100, 20, { finish_reason: "tool_calls" })] }),
            task("tools", 1, 100, 200, { calls: [toolCall(100, 50, "ok"), toolCall(150, 50, "error")] }),
            task("agent", 2, 200, 400, {
              calls: [model(200, 100, 130, 5, { node: "research/agent" }), model(300, 100, 140, 6)],
            }),
          ],
          omitted_calls: 3,
        },
        usage: { by_node: { agent: { total_tokens: 401, calls: 3 } } },
      }),
    ]);
    expect(
      w?.rows.map((r) => [r.node, r.tokens?.total, r.calls.map((c) => `${c.kind} ${c.label} ${c.status}`)]),
    ).toEqual([
      ["agent", 120, ["model acme:m1 ok"]],
      ["tools", undefined, ["tool lookup ok", "tool lookup error"]],
      ["agent", 281, ["model acme:m1 ok", "model acme:m1 ok"]],
    ]);
    const first = w?.rows[0]?.calls[0];
    expect(first).toMatchObject({ offsetPct: 2.5, widthPct: 20, durationMs: 80, finishReason: "tool_calls" });
    expect(first?.tokens).toEqual({ input: 100, output: 20, total: 120 });
    expect(w?.rows[2]?.calls[0]?.node).toBe("research/agent");
    expect(w?.rows[1]?.calls[1]).toMatchObject({ offsetPct: 37.5, widthPct: 12.5 });
    expect(w?.omittedCalls).toBe(3);
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
