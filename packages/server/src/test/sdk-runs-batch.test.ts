/**
 * `runs.createBatch` (POST /runs/batch) through the official SDK: stateless background runs, each on a
 * thread of its own, all checked before any is queued.
 */
import { describe, expect, it } from "vitest";
import { sdkServer } from "./harness.js";

const server = sdkServer();

describe("runs.createBatch", () => {
  it("queues one stateless run per payload, each on its own thread, and they all finish", async () => {
    const runs = await server.client.runs.createBatch([
      { assistantId: "slow", input: { delayMs: 1 }, on_completion: "keep" } as never,
      { assistantId: "slow", input: { delayMs: 1 }, on_completion: "keep", metadata: { n: 2 } } as never,
    ]);
    expect(runs).toHaveLength(2);
    expect(new Set(runs.map((r) => r.thread_id)).size).toBe(2);
    expect(runs[1]?.metadata).toMatchObject({ n: 2 });
    for (const run of runs) {
      await server.client.runs.join(run.thread_id, run.run_id);
      expect((await server.client.runs.get(run.thread_id, run.run_id)).status).toBe("success");
      expect((await server.client.threads.getState(run.thread_id)).values).toMatchObject({ log: ["a", "b", "c"] });
    }
  });

  it("one bad payload refuses the whole batch, naming it, and queues nothing", async () => {
    const before = await server.client.threads.count();
    const refused = await server.client.runs
      .createBatch([
        { assistantId: "slow", input: { delayMs: 1 }, on_completion: "keep" } as never,
        { assistantId: "no-such-graph", input: {} },
      ])
      .then(
        () => undefined,
        (e: { status?: number; message?: string }) => e,
      );
    expect(refused?.status).toBe(404);
    expect(refused?.message).toContain("Run 1 of the batch");
    expect(refused?.message).toContain("Nothing was queued");
    expect(await server.client.threads.count()).toBe(before);
  });

  it("a body that is not a non-empty array of objects is a 400 saying what to send", async () => {
    for (const body of ["{}", "[]", "[1]", "not json"]) {
      const res = await fetch(`${server.t.url}/runs/batch`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect([body, res.status]).toEqual([body, 400]);
      const error = (await res.json()) as { error: string; message: string };
      expect(error.error).toBe("INVALID_ARGUMENT");
      expect(error.message).toMatch(/array of run payloads|must be a JSON object/);
    }
  });
});
