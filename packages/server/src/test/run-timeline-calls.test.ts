/**
 * A run's timeline lists the model and tool calls of each task, nested under the task (over HTTP, the
 * server on SQLite): model, provider, tokens (the same as the run's `metadata.usage`), finish reason;
 * tool, ok or error; never the content. Its size is bounded like the task list.
 */
import type { StreamEvent } from "@trellis/core";
import type { ApiTimelineCall, ApiTimelineModelCall } from "@trellis/protocol";
import { describe, expect, it } from "vitest";
import { RunTimeline, type WireTimeline } from "../runs/run-timeline.js";
import type { WireUsage } from "../runs/run-usage.js";
import type { RunRecord } from "../stores/run-store.js";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const s = sdkServer({
  graphs: {
    ...TEST_GRAPHS,
    react: { module: "./src/test/fixture-react-calls.ts", graph: "reactCallsGraph" },
    nested: { module: "./src/test/fixture-react-calls.ts", graph: "nestedCallsGraph" },
  },
});

async function finishedRun(graph: string) {
  const thread = await s.client.threads.create();
  const run = await s.client.runs.create(thread.thread_id, graph, { input: {} });
  await s.client.runs.join(thread.thread_id, run.run_id);
  const stored = await s.client.runs.get(thread.thread_id, run.run_id);
  return {
    timeline: stored.metadata?.timeline as WireTimeline,
    usage: stored.metadata?.usage as WireUsage,
  };
}

const models = (calls: readonly ApiTimelineCall[]) =>
  calls.filter((c): c is ApiTimelineModelCall => c.kind === "model");

describe("model and tool calls in a run's timeline (GET /threads/{id}/runs/{run_id})", () => {
  it("nests a ReAct agent's model calls and tool calls under the task that made them", async () => {
    const { timeline, usage } = await finishedRun("react");
    expect(timeline.tasks.map((t) => t.node)).toEqual(["agent", "tools", "agent"]);
    const [think, act, answer] = timeline.tasks;
    expect(think?.calls).toEqual([
      {
        kind: "model",
        model: "m-agent",
        provider: "acme",
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        input_tokens: 120,
        output_tokens: 30,
        total_tokens: 150,
        finish_reason: "tool_calls",
      },
    ]);
    expect(answer?.calls).toMatchObject([{ kind: "model", total_tokens: 151, finish_reason: "stop" }]);
    expect(act?.calls?.map((c) => (c.kind === "tool" ? `${c.tool} ${c.status}` : c.kind)).sort()).toEqual([
      "broken error",
      "lookup ok",
    ]);
    for (const task of timeline.tasks) {
      for (const c of task.calls ?? []) {
        expect(c.duration_ms).toBeGreaterThanOrEqual(0);
        expect(Number.isNaN(Date.parse(c.started_at))).toBe(false);
      }
    }
    expect(timeline).not.toHaveProperty("omitted_calls");
    // the tokens of the timeline's model calls are the run's usage
    const calls = models(timeline.tasks.flatMap((t) => t.calls ?? []));
    expect(calls.reduce((n, c) => n + c.input_tokens, 0)).toBe(usage.input_tokens);
    expect(calls.reduce((n, c) => n + c.output_tokens, 0)).toBe(usage.output_tokens);
    expect(calls.reduce((n, c) => n + c.total_tokens, 0)).toBe(usage.total_tokens);
    expect(calls).toHaveLength(usage.calls);
  });

  it("puts a subgraph's calls under the root task that ran the subgraph, with the node that made each", async () => {
    const { timeline, usage } = await finishedRun("nested");
    expect(timeline.tasks.map((t) => t.node)).toEqual(["research", "summarise"]);
    const [research, summarise] = timeline.tasks;
    expect(research?.calls?.map((c) => c.node)).toEqual([
      "research/agent",
      "research/tools",
      "research/tools",
      "research/agent",
    ]);
    expect(summarise?.calls).toMatchObject([{ kind: "model", model: "m-summary", total_tokens: 60 }]);
    expect(summarise?.calls?.[0]).not.toHaveProperty("node");
    const calls = models(timeline.tasks.flatMap((t) => t.calls ?? []));
    expect(calls.reduce((n, c) => n + c.total_tokens, 0)).toBe(usage.total_tokens);
  });
});

describe("the calls' share of the timeline's size", () => {
  const debug = (data: Extract<StreamEvent, { mode: "debug" }>["data"]): StreamEvent => ({
    seq: 0,
    mode: "debug",
    namespace: [],
    data,
  });
  const toolCall = (rootTaskId: string | undefined) => ({
    kind: "tool" as const,
    node: "tools",
    taskId: rootTaskId,
    rootTaskId,
    startedAt: Date.parse("2026-11-26T10:00:00.000Z"),
    durationMs: 4,
    tool: "lookup",
    status: "ok" as const,
  });

  it("keeps the first calls up to its limit; counts the rest, a left-out task's and a call outside any task in omitted_calls", () => {
    const timeline = new RunTimeline(2, 3);
    // a call heard before its task's start was read off the stream still lands under the task
    timeline.call(toolCall("t0"));
    timeline.see(debug({ type: "task", step: 0, taskId: "t0", node: "a" }));
    timeline.call(toolCall("t0"));
    timeline.see(debug({ type: "task_result", step: 0, taskId: "t0", node: "a", status: "done" }));
    timeline.see(debug({ type: "task", step: 1, taskId: "t1", node: "b" }));
    timeline.call(toolCall("t1"));
    timeline.call(toolCall("t1")); // past the limit of 3
    timeline.call(toolCall(undefined)); // outside any task
    timeline.see(debug({ type: "task_result", step: 1, taskId: "t1", node: "b", status: "done" }));
    timeline.call(toolCall("t2")); // its task is past the task limit
    timeline.see(debug({ type: "task", step: 2, taskId: "t2", node: "c" }));
    const run = { metadata: { timeline: { tasks: [], omitted_calls: 1 } } } as unknown as RunRecord;
    timeline.addTo(run);
    const stored = run.metadata.timeline as WireTimeline;
    expect(stored.tasks.map((t) => [t.node, t.calls?.length])).toEqual([
      ["a", 2],
      ["b", 1],
    ]);
    expect(stored.omitted).toBe(1);
    // 1 from an earlier attempt, 1 past the limit, 1 outside a task, 1 of a left-out task
    expect(stored.omitted_calls).toBe(4);
  });
});
