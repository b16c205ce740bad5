/**
 * Run store conformance, part two: attempts and their fencing, events and their replay, a run's end
 * with its thread's status, cancel, retention and the exclusive task lease. Registered by
 * `describeRunStoreConformance` (run-store-conformance.ts) for every store.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { RunStore, ThreadRecord } from "../stores/run-store.js";
import { claim, done, enqueue, newThread, start } from "./run-store-fixtures.js";

/** Registers the attempt, fencing, event, run-end and retention cases against `open`. */
export function describeAttemptCases(open: () => Promise<RunStore>, skip: boolean): void {
  describe("attempts and fencing", () => {
    it.skipIf(skip)("a requeued run's old attempt can write nothing: events, status, thread, heartbeat", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const run = await enqueue(store, threadId);
      const first = await claim(store, "w1", run.runId);
      expect(first.attempt).toBe(1);
      expect((await store.beginAttempt(run.runId, 1, start())).seqs).toEqual([1]);
      expect(await store.appendEvents(run.runId, 1, [{ event: "values", data: { n: 1 } }])).toEqual([2]);

      // w1 fell silent: its run goes back to the queue and w2 claims it as attempt 2
      const requeued = await store.requeueOrphans(0);
      expect(requeued.runs.map((r) => r.runId)).toContain(run.runId);
      // between the requeue and the next claim, attempt 1 is already refused
      await expect(store.appendEvents(run.runId, 1, [{ event: "values", data: {} }])).rejects.toMatchObject({
        code: "LEASE_LOST",
      });
      const second = await claim(store, "w2", run.runId);
      expect(second.attempt).toBe(2);
      await store.beginAttempt(run.runId, 2, start());

      const stale = { runId: run.runId, attempt: 1 };
      await expect(store.beginAttempt(run.runId, 1, start())).rejects.toMatchObject({ code: "LEASE_LOST" });
      await expect(store.finishRun(run.runId, 1, done)).rejects.toMatchObject({ code: "LEASE_LOST" });
      expect(await store.releaseRun(run.runId, 1)).toBe(false);
      expect(await store.heartbeat("w1", [stale])).toEqual({ stops: [], lost: [run.runId] });
      expect(await store.heartbeat("w2", [{ runId: run.runId, attempt: 2 }])).toEqual({ stops: [], lost: [] });

      // the current attempt's events go on from the last number: one gap-free numbering
      expect(await store.appendEvents(run.runId, 2, [{ event: "values", data: { n: 2 } }])).toEqual([4]);
      await store.finishRun(run.runId, 2, { ...done, events: [{ event: "end", data: null }] });
      expect((await store.eventsAfter(run.runId, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect((await store.getRun(run.runId))?.status).toBe("success");
      expect((await store.getThread(threadId))?.status).toBe("idle");
      // a finished run is never claimed again
      expect(await store.heartbeat("w2", [{ runId: run.runId, attempt: 2 }])).toEqual({
        stops: [],
        lost: [run.runId],
      });
    });

    it.skipIf(skip)("the first attempt's pre-run head is kept by later attempts", async () => {
      const store = await open();
      const run = await enqueue(store, await newThread(store));
      await claim(store, "w1", run.runId);
      await store.beginAttempt(run.runId, 1, { ...start(), preCheckpointId: "cp-1", preWriteCount: 2 });
      await store.requeueOrphans(0);
      await claim(store, "w2", run.runId);
      const again = await store.beginAttempt(run.runId, 2, { ...start(), preCheckpointId: "cp-9", preWriteCount: 0 });
      expect(again).toMatchObject({ preCheckpointId: "cp-1", preWriteCount: 2 });
    });

    it.skipIf(skip)("a released run (shutdown) is claimed again as the next attempt", async () => {
      const store = await open();
      const run = await enqueue(store, await newThread(store));
      await claim(store, "w1", run.runId);
      expect(await store.releaseRun(run.runId, 1)).toBe(true);
      expect((await store.getRun(run.runId))?.status).toBe("pending");
      expect((await claim(store, "w2", run.runId)).attempt).toBe(2);
    });

    it.skipIf(skip)("requeue with staleMs leaves a run whose worker is alive", async () => {
      const store = await open();
      const run = await enqueue(store, await newThread(store));
      await claim(store, "w1", run.runId);
      await store.heartbeat("w1", [{ runId: run.runId, attempt: 1 }]);
      const { runs } = await store.requeueOrphans(60_000);
      expect(runs.map((r) => r.runId)).not.toContain(run.runId);
      expect((await store.getRun(run.runId))?.status).toBe("running");
    });

    it.skipIf(skip)("concurrent appends of one attempt never collide and leave no gap", async () => {
      const store = await open();
      const run = await enqueue(store, await newThread(store));
      await claim(store, "w1", run.runId);
      const batches = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.appendEvents(run.runId, 1, [
            { event: "a", data: i },
            { event: "b", data: i },
          ]),
        ),
      );
      const seqs = batches.flat().sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      for (const b of batches) expect(b[1]).toBe((b[0] as number) + 1);
    });
  });

  describe("events", () => {
    it.skipIf(skip)("request-side events share the run's numbering; replay reads pages after a number", async () => {
      const store = await open();
      const run = await enqueue(store, await newThread(store));
      expect(await store.appendEvent(run.runId, "metadata", { run_id: run.runId })).toBe(1);
      await claim(store, "w1", run.runId);
      await store.beginAttempt(run.runId, 1, start("slow", [{ event: "values", data: { n: 0 } }]));
      await store.appendEvents(
        run.runId,
        1,
        Array.from({ length: 8 }, (_, i) => ({ event: "values", data: { n: i + 1 } })),
      );
      const page1 = await store.eventsAfter(run.runId, 0, 4);
      expect(page1.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      const page2 = await store.eventsAfter(run.runId, 4, 4);
      expect(page2.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
      expect(page2[0]).toMatchObject({ event: "values", data: { n: 3 } });
      expect((await store.eventsAfter(run.runId, 8)).map((e) => e.seq)).toEqual([9, 10]);
    });
  });

  describe("a run's end and its thread", () => {
    it.skipIf(skip)("sets the thread's status in the same write; busy while another is queued", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const r1 = await enqueue(store, threadId);
      const r2 = await enqueue(store, threadId);
      await claim(store, "w1", r1.runId);
      await store.beginAttempt(r1.runId, 1, start());
      expect((await store.getThread(threadId))?.graphId).toBe("slow");
      await store.finishRun(r1.runId, 1, { ...done, threadStatus: "interrupted" });
      expect((await store.getThread(threadId))?.status).toBe("busy");
      await claim(store, "w1", r2.runId);
      await store.finishRun(r2.runId, 1, {
        status: "error",
        error: { error: "INTERNAL", message: "x" },
        threadStatus: "error",
        events: [],
      });
      expect((await store.getThread(threadId))?.status).toBe("error");
      expect((await store.getRun(r2.runId))?.error).toEqual({ error: "INTERNAL", message: "x" });
    });

    it.skipIf(skip)(
      "a thread left busy with no active run (a process died between two writes) is repaired",
      async () => {
        const store = await open();
        const threadId = await newThread(store);
        const run = await enqueue(store, threadId);
        await claim(store, "w1", run.runId);
        // the old, two-write ending: the run's status landed, the thread's did not
        await store.updateRun(run.runId, { status: "interrupted" });
        expect((await store.getThread(threadId))?.status).toBe("busy");
        const { repairedThreads } = await store.requeueOrphans(0);
        expect(repairedThreads).toContain(threadId);
        expect((await store.getThread(threadId))?.status).toBe("interrupted");
      },
    );

    it.skipIf(skip)(
      "a run that may have written stamps the thread's change on the store's clock before it is seen ended; a refused one does not",
      async () => {
        const store = await open();
        const threadId = await newThread(store);
        const fresh = await store.stateClock(threadId);
        expect(fresh.changedAt).toBeNull();
        const r1 = await enqueue(store, threadId);
        await claim(store, "w1", r1.runId);
        const before = (await store.stateClock(threadId)).now;
        await store.finishRun(r1.runId, 1, { ...done, threadStatus: "interrupted" });
        const stamped = await store.stateClock(threadId);
        expect(stamped.changedAt).not.toBeNull();
        expect(stamped.changedAt as number).toBeGreaterThanOrEqual(before);
        expect(stamped.now).toBeGreaterThanOrEqual(stamped.changedAt as number);
        // refused before it wrote anything (RESUME_MISMATCH): the stamp stays
        const r2 = await enqueue(store, threadId);
        await claim(store, "w1", r2.runId);
        await store.finishRun(r2.runId, 1, {
          status: "error",
          error: { error: "RESUME_MISMATCH", message: "moved on" },
          threadStatus: "interrupted",
          events: [],
          stateChanged: false,
        });
        expect((await store.stateClock(threadId)).changedAt).toBe(stamped.changedAt);
        await store.markStateChanged(threadId); // a state update
        expect((await store.stateClock(threadId)).changedAt as number).toBeGreaterThan(stamped.changedAt as number);
        expect((await store.stateClock(randomUUID())).changedAt).toBeNull();
      },
    );

    it.skipIf(skip)("cancelling a queued run settles it and its thread; a running one gets the stop", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const r1 = await enqueue(store, threadId);
      const r2 = await enqueue(store, threadId);
      await claim(store, "w1", r1.runId);
      expect(await store.cancelRun(r2.runId, "interrupt")).toBe("cancelled");
      expect((await store.getRun(r2.runId))?.status).toBe("interrupted");
      expect(await store.cancelRun(r1.runId, "rollback")).toBe("signalled");
      expect(await store.heartbeat("w1", [{ runId: r1.runId, attempt: 1 }])).toEqual({
        stops: [{ runId: r1.runId, cancel: "rollback" }],
        lost: [],
      });
      await store.finishRun(r1.runId, 1, { ...done, status: "interrupted" });
      expect(await store.cancelRun(r1.runId, "interrupt")).toBe("finished");
      expect(await store.cancelRun(randomUUID(), "interrupt")).toBe("missing");
      expect((await store.getThread(threadId))?.status).toBe("idle");
    });
  });

  describe("retention and exclusive tasks", () => {
    it.skipIf(skip)("sweeps finished runs past the cutoff with their events, never an active one", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const finished = await enqueue(store, threadId);
      await claim(store, "w1", finished.runId);
      await store.finishRun(finished.runId, 1, { ...done, events: [{ event: "end", data: null }] });
      const queued = await enqueue(store, threadId);
      expect(await store.sweepRuns({ runsOlderThanMs: 60_000, limit: 100 })).toBe(0);
      await new Promise((r) => setTimeout(r, 5));
      let swept = 0;
      // other tests' finished runs may share the store: sweep until this one is gone
      for (let i = 0; i < 20 && (await store.getRun(finished.runId)); i++) {
        swept += await store.sweepRuns({ runsOlderThanMs: 1, limit: 100 });
      }
      expect(swept).toBeGreaterThan(0);
      expect(await store.getRun(finished.runId)).toBeUndefined();
      expect(await store.eventsAfter(finished.runId, 0)).toEqual([]);
      expect((await store.getRun(queued.runId))?.status).toBe("pending");
    });

    it.skipIf(skip)(
      "lists idle threads oldest first after a cursor, without a thread that has an active run",
      async () => {
        const store = await open();
        const idle = await newThread(store);
        const busy = await newThread(store);
        await enqueue(store, busy);
        await new Promise((r) => setTimeout(r, 5));
        const seen: string[] = [];
        let after: string | null = null;
        for (let page = 0; page < 1_000; page++) {
          const batch = await store.idleThreads({ idleForMs: 1, after, limit: 50 });
          if (batch.length === 0) break;
          for (let i = 1; i < batch.length; i++) {
            expect((batch[i] as ThreadRecord).updatedAt >= (batch[i - 1] as ThreadRecord).updatedAt).toBe(true);
          }
          seen.push(...batch.map((t) => t.threadId));
          after = (batch[batch.length - 1] as ThreadRecord).updatedAt;
          if (batch.length < 50) break;
        }
        expect(seen).toContain(idle);
        expect(seen).not.toContain(busy);
      },
    );

    it.skipIf(skip)("an exclusive task runs in one place at a time and is free again after", async () => {
      const store = await open();
      const name = `task-${randomUUID()}`;
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let entered!: () => void;
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      const first = store.exclusive(name, 10_000, async () => {
        entered();
        await held;
      });
      await inside;
      expect(await store.exclusive(name, 10_000, async () => undefined)).toBe(false);
      release();
      expect(await first).toBe(true);
      let ran = false;
      expect(
        await store.exclusive(name, 10_000, async () => {
          ran = true;
        }),
      ).toBe(true);
      expect(ran).toBe(true);
    });
  });
}
