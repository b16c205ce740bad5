/**
 * A resume answers the pause its client saw and no other; a thread belongs to the graph that made it;
 * a resume at a static breakpoint continues over HTTP as it does in-process.
 */
import { describe, expect, it } from "vitest";
import { eventually, sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, "slow-approval": { module: "./src/test/fixture-interview.ts", graph: "slowApproval" } },
});

type Approval = { log: string[]; published: boolean };
const state = async (threadId: string) => server.client.threads.getState<Approval>(threadId);

/** A slow-approval thread paused at its review: answering it runs a 1.5 s step before the approval. */
async function pausedAtReview(): Promise<string> {
  const thread = await server.client.threads.create();
  await server.client.runs.wait(thread.thread_id, "slow-approval", { input: { log: [] } });
  expect((await state(thread.thread_id)).next).toEqual(["review"]);
  return thread.thread_id;
}

/** The JSON error body of a refused SDK call (`HTTP 409: {...}`). */
function refusal(reason: unknown): {
  status: number;
  body: { error: string; message: string; details?: { pending?: unknown } };
} {
  const m = /^HTTP (\d{3}): (.*)$/s.exec(String((reason as Error)?.message ?? reason));
  if (!m) throw new Error(`not an HTTP refusal: ${String(reason)}`);
  return { status: Number(m[1]), body: JSON.parse(m[2] as string) };
}

/** Waits until the run is executing (claimed by the worker, not just queued). */
async function untilRunning(threadId: string, runId: string): Promise<void> {
  await eventually(async () => (await server.client.runs.get(threadId, runId)).status === "running");
}

describe("a plain resume is bound to the pause pending when its request arrived", () => {
  it("20 concurrent resumes of one review (enqueue): exactly one is applied, and nothing is published", async () => {
    const threadId = await pausedAtReview();
    const created = await Promise.allSettled(
      Array.from({ length: 20 }, (_, k) =>
        server.client.runs.create(threadId, "slow-approval", {
          command: { resume: `answer ${k}` },
          multitaskStrategy: "enqueue",
        }),
      ),
    );
    const accepted = created.filter((c) => c.status === "fulfilled").map((c) => c.value);
    for (const run of accepted) await server.client.runs.join(threadId, run.run_id);
    const runs = await Promise.all(accepted.map((r) => server.client.runs.get(threadId, r.run_id)));
    // the one applied answered the review and paused at the approval (a pause is a run's success)
    expect(runs.filter((r) => r.status === "success")).toHaveLength(1);
    // the other accepted ones failed at their turn, their error recorded: RESUME_MISMATCH
    for (const r of runs.filter((r) => r.status !== "success")) {
      expect(r.status).toBe("error");
      expect((r as unknown as { error: { error: string } | null }).error?.error).toBe("RESUME_MISMATCH");
    }
    // the refused ones: 409 RESUME_MISMATCH, the pending interrupts in the details
    for (const c of created.filter((c) => c.status === "rejected")) {
      const { status, body } = refusal((c as PromiseRejectedResult).reason);
      expect(status).toBe(409);
      expect(body.error).toBe("RESUME_MISMATCH");
      expect(Array.isArray(body.details?.pending)).toBe(true);
    }
    const after = await state(threadId);
    expect(after.values.log.filter((l) => l.startsWith("review:"))).toHaveLength(1);
    expect(after.values.log.some((l) => l.startsWith("approve:"))).toBe(false);
    expect(after.values.published).toBe(false);
    expect(after.next).toEqual(["approve"]);
    expect((await server.client.threads.get(threadId)).status).toBe("interrupted");
  });

  it("resumes sent while the first answer runs (reject): each is refused by the binding, 409 RESUME_MISMATCH", async () => {
    const threadId = await pausedAtReview();
    const first = await server.client.runs.create(threadId, "slow-approval", { command: { resume: "first" } });
    await untilRunning(threadId, first.run_id);
    const late = await Promise.allSettled(
      Array.from({ length: 19 }, (_, k) =>
        server.client.runs.create(threadId, "slow-approval", {
          command: { resume: `late ${k}` },
          multitaskStrategy: "reject",
        }),
      ),
    );
    // not the multitask refusal: a resume that names no interrupt cannot be bound while a run may be
    // making a new pause (or, once it made one, to a pause made after it arrived)
    for (const c of late) {
      expect(c.status).toBe("rejected");
      const { status, body } = refusal((c as PromiseRejectedResult).reason);
      expect(status).toBe(409);
      expect(body.error).toBe("RESUME_MISMATCH");
    }
    await server.client.runs.join(threadId, first.run_id);
    expect((await server.client.runs.get(threadId, first.run_id)).status).toBe("success");
    expect(await server.client.runs.list(threadId)).toHaveLength(2); // the first turn and the first answer
    const after = await state(threadId);
    expect(after.values.log).toEqual(["review: first", "prepared"]);
    expect(after.values.published).toBe(false);
    expect(after.next).toEqual(["approve"]);
  });

  it("a resume sent before the next pause came is refused once it came, naming it; by its id it applies", async () => {
    const threadId = await pausedAtReview();
    const first = await server.client.runs.create(threadId, "slow-approval", { command: { resume: "first" } });
    await untilRunning(threadId, first.run_id);
    // arrives while the run goes from the review to the approval: nothing to answer yet
    const during = await server.client.runs
      .create(threadId, "slow-approval", { command: { resume: "second" }, multitaskStrategy: "enqueue" })
      .then(
        () => undefined,
        (e: unknown) => refusal(e),
      );
    expect(during?.status).toBe(409);
    expect(during?.body.error).toBe("RESUME_MISMATCH");
    await server.client.runs.join(threadId, first.run_id);
    const paused = await state(threadId);
    const approval = paused.tasks[0]?.interrupts[0]?.id as string;
    expect(paused.next).toEqual(["approve"]);
    // the client answers the approval by its id: that one applies
    await server.client.runs.wait(threadId, "slow-approval", { command: { resume: { [approval]: true } } });
    const after = await state(threadId);
    expect(after.values.log).toEqual(["review: first", "prepared", "approve: true"]);
    expect(after.values.published).toBe(true);
  });
});

describe("a plain resume sent right after the pause it answers", () => {
  it("applies when the server is slow to handle its read of the thread's clock (a busy event loop)", async () => {
    const threadId = await pausedAtReview();
    // the store's clock is read on time, but the answer is handled 300 ms later, as on a loaded server:
    // the request must not look 300 ms older than it is, which would put the pause after it
    const store = server.t.server.store;
    const original = store.stateClock.bind(store);
    store.stateClock = async (id) => {
      const clock = await original(id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return clock;
    };
    try {
      const answered = await server.client.runs
        .create(threadId, "slow-approval", { command: { resume: "right away" } })
        .then(
          () => undefined,
          (e: unknown) => refusal(e),
        );
      expect(answered).toBeUndefined();
    } finally {
      store.stateClock = original;
    }
    await eventually(async () => (await state(threadId)).next[0] === "approve", 10_000);
    expect((await state(threadId)).values.log).toEqual(["review: right away", "prepared"]);
  });
});

describe("a thread is bound to the graph that created it", () => {
  it("a run of another assistant on it is a 409, and the pause and the values stay", async () => {
    const threadId = await pausedAtReview();
    const before = await state(threadId);
    await expect(server.client.runs.wait(threadId, "ask", { input: { log: [] } })).rejects.toThrow(
      /409.*slow-approval/s,
    );
    await expect(server.client.runs.wait(threadId, "slow", { command: { resume: "x" } })).rejects.toThrow(/409/);
    const after = await state(threadId);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(after.values).toEqual(before.values);
    expect(after.tasks[0]?.interrupts).toHaveLength(1);
    expect(await server.client.runs.list(threadId)).toHaveLength(1);
  });
});

describe("Command({ resume }) at a static breakpoint", () => {
  it("continues the run over HTTP, as it does in-process", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "slow", { input: { delayMs: 1 }, interruptBefore: ["b"] });
    expect((await server.client.threads.getState(thread.thread_id)).next).toEqual(["b"]);
    const done = (await server.client.runs.wait(thread.thread_id, "slow", { command: { resume: "go" } })) as {
      log: string[];
    };
    expect(done.log).toEqual(["a", "b", "c"]);
  });
});
