/**
 * A resume answers the pause its client saw and no other; a thread belongs to the graph that made it;
 * a resume at a static breakpoint continues over HTTP as it does in-process.
 */
import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

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

describe("a plain resume is bound to the pause pending when it is accepted", () => {
  it.each(["enqueue", "reject"] as const)(
    "20 concurrent resumes of one review (%s): exactly one is applied, and nothing is published",
    async (strategy) => {
      const threadId = await pausedAtReview();
      const created = await Promise.allSettled(
        Array.from({ length: 20 }, (_, k) =>
          server.client.runs.create(threadId, "slow-approval", {
            command: { resume: `answer ${k}` },
            multitaskStrategy: strategy,
          }),
        ),
      );
      const accepted = created.filter((c) => c.status === "fulfilled").map((c) => c.value);
      for (const run of accepted) await server.client.runs.join(threadId, run.run_id);
      const runs = await Promise.all(accepted.map((r) => server.client.runs.get(threadId, r.run_id)));
      // the one applied answered the review and paused at the approval (a pause is a run's success)
      expect(runs.filter((r) => r.status === "success")).toHaveLength(1);
      // the others were refused up front (409) or failed at their turn with RESUME_MISMATCH, changing nothing
      for (const r of runs.filter((r) => r.status !== "success")) {
        expect(r.status).toBe("error");
        expect((r as unknown as { error: { error: string } }).error?.error ?? "RESUME_MISMATCH").toBe(
          "RESUME_MISMATCH",
        );
      }
      for (const c of created.filter((c) => c.status === "rejected")) {
        expect(String((c as PromiseRejectedResult).reason)).toMatch(/409/);
      }
      const after = await state(threadId);
      expect(after.values.log.filter((l) => l.startsWith("review:"))).toHaveLength(1);
      expect(after.values.log.some((l) => l.startsWith("approve:"))).toBe(false);
      expect(after.values.published).toBe(false);
      expect(after.next).toEqual(["approve"]);
      expect((await server.client.threads.get(threadId)).status).toBe("interrupted");
    },
  );

  it("a resume stored before the thread moved on fails with RESUME_MISMATCH when its turn comes", async () => {
    const threadId = await pausedAtReview();
    const slow = await server.client.runs.create(threadId, "slow-approval", { command: { resume: "first" } });
    const late = await server.client.runs.create(threadId, "slow-approval", {
      command: { resume: "second" },
      multitaskStrategy: "enqueue",
    });
    await server.client.runs.join(threadId, late.run_id);
    expect((await server.client.runs.get(threadId, slow.run_id)).status).toBe("success"); // paused at the approval
    const failed = await server.client.runs.get(threadId, late.run_id);
    expect(failed.status).toBe("error");
    expect(JSON.stringify(failed)).toMatch(/RESUME_MISMATCH/);
    const after = await state(threadId);
    expect(after.values.log).toEqual(["review: first", "prepared"]);
    expect(after.values.published).toBe(false);
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
