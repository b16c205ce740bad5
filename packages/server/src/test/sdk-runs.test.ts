import { describe, expect, it } from "vitest";
import { eventually, sdkServer } from "./harness.js";

const server = sdkServer();

type Values = { log: string[]; answer?: string };
const values = async (threadId: string) => (await server.client.threads.getState(threadId)).values as Values;
const ran = async (threadId: string, node: string) => ((await values(threadId)).log ?? []).includes(node);

describe("runs: cancel, resumable streams, concurrent resumes", () => {
  it("cancel reaches the running node at once and keeps the thread's progress", async () => {
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 20_000 } });
    await eventually(async () => (await server.client.runs.get(thread.thread_id, run.run_id)).status === "running");
    const started = Date.now();
    await server.client.runs.cancel(thread.thread_id, run.run_id, true);
    // the 20 s sleep was aborted through ctx.signal (half of it is a margin a loaded machine keeps)
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await server.client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    expect((await server.client.threads.getState(thread.thread_id)).next).toEqual(["a"]);
  });

  it("a stream reconnecting with Last-Event-ID gets the rest without gap or duplicate", async () => {
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 80 },
      streamMode: ["values", "updates"],
    });
    const first: Array<{ id?: string; event: string }> = [];
    const abort = new AbortController();
    for await (const e of server.client.runs.joinStream(thread.thread_id, run.run_id, { signal: abort.signal })) {
      first.push(e as never);
      if (first.length === 3) abort.abort();
    }
    const lastEventId = first.at(-1)?.id;
    expect(lastEventId).toBeDefined();
    const rest: Array<{ id?: string; event: string }> = [];
    for await (const e of server.client.runs.joinStream(thread.thread_id, run.run_id, {
      lastEventId: lastEventId as string,
    }))
      rest.push(e as never);
    const all: Array<{ id?: string; event: string }> = [];
    for await (const e of server.client.runs.joinStream(thread.thread_id, run.run_id)) all.push(e as never);
    expect([...first, ...rest].map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(all.map((e) => Number(e.id))).toEqual(all.map((_, i) => i + 1));
    expect(all.filter((e) => e.event === "updates")).toHaveLength(3);
  });

  it("joins a run and lists it", async () => {
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 10 } });
    const result = (await server.client.runs.join(thread.thread_id, run.run_id)) as Values;
    expect(result.log).toEqual(["a", "b", "c"]);
    expect((await server.client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("two concurrent resumes of one interrupt: exactly one applies", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "ask", { input: { log: [] } });
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const outcomes = await Promise.allSettled(
      ["Ana", "Bo"].map((name) => server.client.runs.wait(thread.thread_id, "ask", { command: { resume: name } })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(String((outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason)).toMatch(/409/);
    const v = await values(thread.thread_id);
    expect(v.log).toEqual(["asked", "replied"]);
  });

  it("two enqueued resumes of one interrupt: the second finds nothing to resume", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "ask", { input: { log: [] } });
    const created = await Promise.allSettled(
      ["Ana", "Bo"].map((name) =>
        server.client.runs.create(thread.thread_id, "ask", { command: { resume: name }, multitaskStrategy: "enqueue" }),
      ),
    );
    // the second is refused up front (409) when the first already answered, or fails when its turn comes
    const statuses: string[] = [];
    for (const c of created) {
      if (c.status === "rejected") {
        statuses.push(String(c.reason).includes("409") ? "refused" : "?");
        continue;
      }
      await server.client.runs.join(thread.thread_id, c.value.run_id);
      statuses.push((await server.client.runs.get(thread.thread_id, c.value.run_id)).status);
    }
    expect(statuses.filter((s) => s === "success")).toHaveLength(1);
    expect(statuses.filter((s) => s === "error" || s === "refused")).toHaveLength(1);
    expect((await values(thread.thread_id)).log).toEqual(["asked", "replied"]);
  });
});

describe("multitask strategies on a busy thread", () => {
  it("reject: 409, nothing stored", async () => {
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 300 } });
    await expect(server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 1 } })).rejects.toThrow(/409/);
    expect(await server.client.runs.list(thread.thread_id)).toHaveLength(1);
    await server.client.runs.join(thread.thread_id, run.run_id);
  });

  it("enqueue: the second run starts when the first ends", async () => {
    const thread = await server.client.threads.create();
    const r1 = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 100 } });
    const r2 = await server.client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 1 },
      multitaskStrategy: "enqueue",
    });
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("busy");
    await server.client.runs.join(thread.thread_id, r2.run_id);
    expect((await server.client.runs.get(thread.thread_id, r1.run_id)).status).toBe("success");
    expect((await values(thread.thread_id)).log).toEqual(["a", "b", "c", "a", "b", "c"]);
  });

  it("interrupt: the running run stops at its next step boundary and keeps its progress", async () => {
    const thread = await server.client.threads.create();
    const r1 = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 300 } });
    await eventually(() => ran(thread.thread_id, "a"));
    const r2 = await server.client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 1 },
      multitaskStrategy: "interrupt",
    });
    await server.client.runs.join(thread.thread_id, r2.run_id);
    expect((await server.client.runs.get(thread.thread_id, r1.run_id)).status).toBe("interrupted");
    const log = (await values(thread.thread_id)).log;
    // r1 finished "a" and the step it was in ("b"), then stopped; r2 ran from the start
    expect(log.slice(0, 2)).toEqual(["a", "b"]);
    expect(log.slice(-3)).toEqual(["a", "b", "c"]);
    expect(log).toHaveLength(5);
  });

  it("rollback: the running run is cancelled and its checkpoints undone", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "slow", { input: { delayMs: 1 } }); // history before r1
    const r1 = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 300 } });
    await eventually(async () => (await values(thread.thread_id)).log.length >= 4);
    const r2 = await server.client.runs.create(thread.thread_id, "slow", {
      input: { delayMs: 1 },
      multitaskStrategy: "rollback",
    });
    await server.client.runs.join(thread.thread_id, r2.run_id);
    expect((await server.client.runs.get(thread.thread_id, r1.run_id)).status).toBe("interrupted");
    expect((await values(thread.thread_id)).log).toEqual(["a", "b", "c", "a", "b", "c"]);
  });

  it("rollback of a thread's first run leaves no trace of it", async () => {
    const thread = await server.client.threads.create();
    const r1 = await server.client.runs.create(thread.thread_id, "slow", { input: { delayMs: 300 } });
    await eventually(() => ran(thread.thread_id, "a"));
    await server.client.runs.cancel(thread.thread_id, r1.run_id, true, "rollback");
    const state = await server.client.threads.getState(thread.thread_id);
    expect(state.checkpoint.checkpoint_id).toBeNull();
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("rollback of a resume: the answer is dropped and the interrupt is pending again", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "ask-then-slow", { input: { delayMs: 2_000 } });
    const paused = await server.client.threads.getState(thread.thread_id);
    expect(paused.tasks[0]?.interrupts).toHaveLength(1);
    const run = await server.client.runs.create(thread.thread_id, "ask-then-slow", { command: { resume: "tides" } });
    await eventually(() => ran(thread.thread_id, "asked"));
    await server.client.runs.cancel(thread.thread_id, run.run_id, true, "rollback");
    const state = await server.client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["ask"]);
    const pending = state.tasks[0]?.interrupts ?? [];
    expect(pending.map((i) => i.value)).toEqual([{ question: "Topic?" }]);
    expect((state.values as Values).log).toEqual([]);
    expect(state.metadata?.source).toBe("fork");
    // the interrupt (a fork gives it a new id) is answered again, by its id
    const again = await server.client.runs.create(thread.thread_id, "ask-then-slow", {
      command: { resume: { [pending[0]!.id as string]: "waves" } },
    });
    await eventually(() => ran(thread.thread_id, "asked"));
    await server.client.runs.cancel(thread.thread_id, again.run_id, true);
    expect((await values(thread.thread_id)).answer).toBe("waves");
  });
});
