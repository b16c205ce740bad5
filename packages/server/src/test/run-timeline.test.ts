import type { StreamEvent } from "@trellis/core";
import { describe, expect, it, vi } from "vitest";
import { RunTimeline, type WireTimeline } from "../runs/run-timeline.js";
import type { RunRecord } from "../stores/run-store.js";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const s = sdkServer({
  graphs: { ...TEST_GRAPHS, usage: { module: "./src/test/fixture-usage.ts", graph: "usageGraph" } },
});

const timelineOf = async (threadId: string, runId: string) =>
  (await s.client.runs.get(threadId, runId)).metadata?.timeline as WireTimeline | undefined;

describe("a run's timeline over the Agent Server API (metadata.timeline)", () => {
  it("GET /threads/{id}/runs/{run_id} shows one entry per task, in order, with its step and a duration of 0 or more", async () => {
    const thread = await s.client.threads.create();
    // no stream mode asked: the timeline is kept whatever the client streams
    const run = await s.client.runs.create(thread.thread_id, "usage", { input: {} });
    await s.client.runs.join(thread.thread_id, run.run_id);
    const timeline = await timelineOf(thread.thread_id, run.run_id);
    expect(timeline?.tasks.map((t) => [t.node, t.step])).toEqual([
      ["plan", 0],
      ["write", 1],
    ]);
    for (const t of timeline?.tasks ?? []) {
      expect(t.task_id).toEqual(expect.any(String));
      expect(t.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(t.ended_at as string)).toBeGreaterThanOrEqual(Date.parse(t.started_at));
      expect(t).not.toHaveProperty("error");
    }
    const [plan, write] = timeline?.tasks ?? [];
    expect(Date.parse(write?.started_at as string)).toBeGreaterThanOrEqual(Date.parse(plan?.ended_at as string));
    // stored with the run's usage, in the same metadata
    expect((await s.client.runs.get(thread.thread_id, run.run_id)).metadata).toHaveProperty("usage.calls", 3);
  });

  it("marks the task that failed with its error", async () => {
    const thread = await s.client.threads.create();
    const run = await s.client.runs.create(thread.thread_id, "usage", { input: { fail: true } });
    await s.client.runs.join(thread.thread_id, run.run_id);
    const tasks = (await timelineOf(thread.thread_id, run.run_id))?.tasks ?? [];
    expect(tasks.map((t) => t.node)).toEqual(["plan", "write"]);
    expect(tasks[1]?.error).toMatch(/the writer failed after its model calls/);
  });

  it("marks the task that paused, and adds the resumed run's tasks to that run's own timeline", async () => {
    const thread = await s.client.threads.create();
    const first = await s.client.runs.create(thread.thread_id, "ask", { input: {} });
    await s.client.runs.join(thread.thread_id, first.run_id);
    const paused = (await timelineOf(thread.thread_id, first.run_id))?.tasks ?? [];
    expect(paused.length).toBeGreaterThan(0);
    expect(paused.at(-1)?.interrupted).toBe(true);
    const second = await s.client.runs.create(thread.thread_id, "ask", { command: { resume: "yes" } });
    await s.client.runs.join(thread.thread_id, second.run_id);
    const resumed = (await timelineOf(thread.thread_id, second.run_id))?.tasks ?? [];
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed[0]?.node).toBe(paused.at(-1)?.node);
    expect(resumed[0]).not.toHaveProperty("interrupted");
  });
});

describe("a cancelled run's timeline", () => {
  it("keeps the task that was running when the run was cancelled, ended by the cancellation", async () => {
    const thread = await s.client.threads.create();
    const stream = s.client.runs.stream(thread.thread_id, "slow", {
      input: { delayMs: 10_000 },
      streamMode: ["tasks"],
    });
    let runId: string | undefined;
    for await (const chunk of stream) {
      if (chunk.event === "metadata") runId = (chunk.data as { run_id: string }).run_id;
      if (chunk.event === "tasks") break;
    }
    await s.client.runs.cancel(thread.thread_id, runId as string, true);
    const run = await s.client.runs.get(thread.thread_id, runId as string);
    expect(run.status).toBe("interrupted");
    const tasks = (run.metadata?.timeline as WireTimeline | undefined)?.tasks ?? [];
    expect(tasks.map((t) => t.node)).toEqual(["a"]);
    expect(tasks[0]?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(tasks[0]?.error).toMatch(/cancelled/);
  });
});

describe("what the timeline costs the run store", () => {
  it("is stored with the run's end, with its usage: no write of its own, with or without model calls", async () => {
    const update = vi.spyOn(s.t.server.store, "updateRun");
    const finish = vi.spyOn(s.t.server.store, "finishRun");
    try {
      for (const graph of ["usage", "ask"]) {
        const thread = await s.client.threads.create();
        const run = await s.client.runs.create(thread.thread_id, graph, { input: {} });
        await s.client.runs.join(thread.thread_id, run.run_id);
        expect(await timelineOf(thread.thread_id, run.run_id)).toHaveProperty("tasks");
      }
      expect(update).not.toHaveBeenCalled();
      expect(finish.mock.calls.map(([, , end]) => Object.keys(end.metadata ?? {}).sort())).toEqual([
        ["timeline", "usage"],
        ["timeline"],
      ]);
    } finally {
      update.mockRestore();
      finish.mockRestore();
    }
  });
});

const debug = (data: Extract<StreamEvent, { mode: "debug" }>["data"]): StreamEvent => ({
  seq: 0,
  mode: "debug",
  namespace: [],
  data,
});

describe("the timeline's size", () => {
  it("keeps the first tasks up to its limit and counts the rest in omitted, over the run's attempts", () => {
    const timeline = new RunTimeline(2);
    for (const [i, node] of ["a", "b", "c", "d"].entries()) {
      timeline.see(debug({ type: "task", step: i, taskId: `t${i}`, node }));
      timeline.see(debug({ type: "task_result", step: i, taskId: `t${i}`, node, status: "done" }));
    }
    // a subgraph's task is inside its parent's
    timeline.see({ ...debug({ type: "task", step: 0, taskId: "s", node: "inner" }), namespace: ["a:t0"] });
    const run = { metadata: { timeline: { tasks: [], omitted: 1 } } } as unknown as RunRecord;
    expect(timeline.addTo(run)).toBe(true);
    const stored = run.metadata.timeline as WireTimeline;
    expect(stored.tasks.map((t) => t.node)).toEqual(["a", "b"]);
    expect(stored.omitted).toBe(3);
  });

  it("places a task by when the core started and ended it, not by when the server read its events", () => {
    const timeline = new RunTimeline();
    const started = Date.now() - 5_000;
    // the server reads the task's start 5 s after it happened (a busy event loop, a slow store)
    timeline.see(debug({ type: "task", step: 0, taskId: "t0", node: "draft", timestamp: started }));
    timeline.see(
      debug({ type: "task_result", step: 0, taskId: "t0", node: "draft", status: "done", timestamp: started + 40 }),
    );
    const [task] = timeline.tasks;
    expect(task?.started_at).toBe(new Date(started).toISOString());
    expect(task?.ended_at).toBe(new Date(started + 40).toISOString());
    expect(task?.duration_ms).toBe(40);
  });
});
