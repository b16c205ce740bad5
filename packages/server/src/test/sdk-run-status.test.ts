/**
 * Run statuses as LangGraph's Agent Server reports them, read through the official SDK clients (2.x and
 * 1.x): a run that reaches a pause — an `interrupt()` or a static breakpoint — ends `success`, and the
 * pause is the thread's status (`interrupted`); a run that was stopped (cancel, multitask `interrupt`)
 * ends `interrupted`, never `error`.
 */
import { Client as ClientV1 } from "langgraph-sdk-1";
import { describe, expect, it } from "vitest";
import { eventually, sdkServer } from "./harness.js";

const server = sdkServer();

describe("run statuses as LangGraph reports them (SDK 2.x)", () => {
  it("a run that pauses at an interrupt is success; the thread is interrupted; the resume is success too", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const paused = await client.runs.create(thread.thread_id, "ask", { input: { log: [] } });
    const joined = (await client.runs.join(thread.thread_id, paused.run_id)) as { __interrupt__?: unknown[] };
    expect(joined.__interrupt__).toHaveLength(1);
    expect((await client.runs.get(thread.thread_id, paused.run_id)).status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    // the run list filters by the status LangGraph reports
    const listed = await client.runs.list(thread.thread_id, { status: "success" });
    expect(listed.map((r) => r.run_id)).toEqual([paused.run_id]);
    expect(await client.runs.list(thread.thread_id, { status: "interrupted" })).toEqual([]);

    const waited = (await client.runs.wait(thread.thread_id, "ask", { command: { resume: "Ana" } })) as {
      answer?: string;
    };
    expect(waited.answer).toBe("Ana");
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success", "success"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("a run stopped at a static breakpoint is success, and a null input continues it", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 1 },
      interruptBefore: ["b"],
    });
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["b"]);
    await client.runs.wait(thread.thread_id, "slow", { input: null });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("a cancelled run is interrupted, not error and not success", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { delayMs: 2_000 } });
    await eventually(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "running");
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  });

  it("a run stopped by multitask interrupt is interrupted; the run that replaced it is success", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const r1 = await client.runs.create(thread.thread_id, "slow", { input: { delayMs: 300 } });
    await eventually(async () => (await client.runs.get(thread.thread_id, r1.run_id)).status === "running");
    const r2 = await client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 1 },
      multitaskStrategy: "interrupt",
    });
    await client.runs.join(thread.thread_id, r2.run_id);
    // r1 stopped at a step boundary with work left: it was stopped, not paused by the graph
    expect((await client.runs.get(thread.thread_id, r1.run_id)).status).toBe("interrupted");
    expect((await client.runs.get(thread.thread_id, r2.run_id)).status).toBe("success");
  });
});

describe("run statuses as LangGraph reports them (SDK 1.x)", () => {
  it("a paused run is success and its thread interrupted", async () => {
    const client = new ClientV1({ apiUrl: server.t.url, apiKey: null });
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "ask", { input: { log: [] } })) as {
      __interrupt__?: unknown[];
    };
    expect(paused.__interrupt__).toHaveLength(1);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run?.status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });
});
