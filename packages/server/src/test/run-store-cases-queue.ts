/**
 * Run store conformance, part one: observability, threads (create, search, count, delete, the state
 * clock) and the queue with its multitask strategies and fair claims. Registered by
 * `describeRunStoreConformance` (run-store-conformance.ts) for every store.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newRunRecord } from "../runs/run-manager.js";
import type { RunStore } from "../stores/run-store.js";
import { claim, done, enqueue, newThread, start } from "./run-store-fixtures.js";

/** Registers the observability, thread and queue cases against `open`. */
export function describeThreadAndQueueCases(open: () => Promise<RunStore>, skip: boolean): void {
  describe("observability", () => {
    it.skipIf(skip)(
      "runCounts counts pending runs (the queue's depth); updateRun stores a run's metadata",
      async () => {
        const store = await open();
        const before = (await store.runCounts?.()) ?? {};
        const a = await enqueue(store, await newThread(store));
        await enqueue(store, await newThread(store));
        const after = (await store.runCounts?.()) ?? {};
        expect((after.pending ?? 0) - (before.pending ?? 0)).toBe(2);
        await store.updateRun(a.runId, { metadata: { source: "test", usage: { total_tokens: 12 } } });
        expect((await store.getRun(a.runId))?.metadata).toEqual({ source: "test", usage: { total_tokens: 12 } });
      },
    );
    it.skipIf(skip)(
      "finishRun stores the metadata given with the end (a run's usage and timeline); a stale attempt's is refused, none keeps it",
      async () => {
        const store = await open();
        const threadId = await newThread(store);
        const run = await enqueue(store, threadId);
        await claim(store, "w1", run.runId);
        await store.beginAttempt(run.runId, 1, start());
        const timeline = { tasks: [{ node: "a", task_id: "t1", step: 0 }] };
        await expect(store.finishRun(run.runId, 2, { ...done, metadata: { stale: true } })).rejects.toMatchObject({
          code: "LEASE_LOST",
        });
        await store.finishRun(run.runId, 1, { ...done, metadata: { ...run.metadata, timeline } });
        const stored = await store.getRun(run.runId);
        expect(stored?.status).toBe("success");
        expect(stored?.metadata).toEqual({ ...run.metadata, timeline });

        const other = await enqueue(store, threadId);
        await claim(store, "w1", other.runId);
        await store.beginAttempt(other.runId, 1, start());
        await store.updateRun(other.runId, { metadata: { kept: 1 } });
        await store.finishRun(other.runId, 1, done);
        expect((await store.getRun(other.runId))?.metadata).toEqual({ kept: 1 });
      },
    );
  });

  describe("threads", () => {
    it.skipIf(skip)("create: raise refuses a second one with CONFLICT, do_nothing returns the first", async () => {
      const store = await open();
      const threadId = await newThread(store, { metadata: { who: "first" } });
      await expect(newThread(store, { threadId })).rejects.toMatchObject({ code: "CONFLICT" });
      const now = new Date().toISOString();
      const kept = await store.createThread(
        {
          threadId,
          createdAt: now,
          updatedAt: now,
          metadata: { who: "second" },
          status: "idle",
          owner: null,
          graphId: null,
          error: null,
        },
        "do_nothing",
      );
      expect(kept.metadata).toEqual({ who: "first" });
      expect(await store.getThread(randomUUID())).toBeUndefined();
    });

    it.skipIf(skip)("update, search by metadata, status, ids and owner, sort, pages and count", async () => {
      const store = await open();
      const tag = randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(await newThread(store, { metadata: { tag, i, even: i % 2 === 0 }, owner: i < 3 ? "ann" : "bob" }));
      }
      await store.updateThread(ids[1] as string, { status: "interrupted", metadata: { tag, i: 1, even: false } });
      await store.updateThread(ids[2] as string, { graphId: "g2", error: { code: "X" } });
      const got = await store.getThread(ids[2] as string);
      expect(got).toMatchObject({ graphId: "g2", error: { code: "X" }, owner: "ann" });

      const all = await store.searchThreads({ metadata: { tag }, limit: 10, offset: 0 });
      expect(all.map((t) => t.threadId).sort()).toEqual([...ids].sort());
      const even = await store.searchThreads({ metadata: { tag, even: true }, limit: 10, offset: 0 });
      expect(even.map((t) => t.metadata.i).sort()).toEqual([0, 2, 4]);
      const paused = await store.searchThreads({ metadata: { tag }, status: "interrupted", limit: 10, offset: 0 });
      expect(paused.map((t) => t.threadId)).toEqual([ids[1]]);
      const bobs = await store.searchThreads({ metadata: { tag }, owner: "bob", limit: 10, offset: 0 });
      expect(bobs.map((t) => t.threadId).sort()).toEqual([ids[3], ids[4]].sort());
      const picked = await store.searchThreads({ ids: [ids[0] as string, ids[4] as string], limit: 10, offset: 0 });
      expect(picked.map((t) => t.threadId).sort()).toEqual([ids[0], ids[4]].sort());

      const byId = await store.searchThreads({
        metadata: { tag },
        sortBy: "thread_id",
        sortOrder: "asc",
        limit: 2,
        offset: 1,
      });
      expect(byId.map((t) => t.threadId)).toEqual([...ids].sort().slice(1, 3));
      expect(await store.countThreads({ metadata: { tag } })).toBe(5);
      expect(await store.countThreads({ metadata: { tag }, owner: "ann" })).toBe(3);
    });

    it.skipIf(skip)("delete removes the thread, its runs and their events", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const run = await enqueue(store, threadId);
      await store.appendEvent(run.runId, "values", { n: 1 });
      await store.deleteThread(threadId);
      expect(await store.getThread(threadId)).toBeUndefined();
      expect(await store.getRun(run.runId)).toBeUndefined();
      expect(await store.eventsAfter(run.runId, 0)).toEqual([]);
    });
  });

  describe("the queue", () => {
    it.skipIf(skip)("reject refuses a run on a busy thread with CONFLICT and queues nothing", async () => {
      const store = await open();
      const threadId = await newThread(store);
      await enqueue(store, threadId);
      await expect(enqueue(store, threadId, "reject")).rejects.toMatchObject({ code: "CONFLICT" });
      expect(await store.activeRuns(threadId)).toHaveLength(1);
    });

    it.skipIf(skip)("interrupt and rollback drop the queued runs and hand back the running one", async () => {
      for (const strategy of ["interrupt", "rollback"] as const) {
        const store = await open();
        const threadId = await newThread(store);
        const running = await enqueue(store, threadId);
        await claim(store, "w1", running.runId);
        const queued = await enqueue(store, threadId);
        const fresh = newRunRecord({ ...running, runId: randomUUID(), multitaskStrategy: strategy });
        const result = await store.enqueueRun(fresh, strategy);
        expect(result.running?.runId).toBe(running.runId);
        expect(result.dropped.map((r) => r.runId)).toEqual([queued.runId]);
        expect((await store.activeRuns(threadId)).map((r) => r.runId)).toEqual([running.runId, fresh.runId]);
        expect((await store.getRun(queued.runId))?.status).not.toMatch(/^(pending|running)$/);
      }
    });

    it.skipIf(skip)("a thread never has two running runs; its runs start in order", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const runs = [await enqueue(store, threadId), await enqueue(store, threadId), await enqueue(store, threadId)];
      const claimed = (await Promise.all([store.claimNext("a"), store.claimNext("b"), store.claimNext("c")])).filter(
        (r) => r?.threadId === threadId,
      );
      expect(claimed.map((r) => r?.runId)).toEqual([runs[0]?.runId]);
      expect((await store.activeRuns(threadId)).filter((r) => r.status === "running")).toHaveLength(1);
    });

    it.skipIf(skip)("claims are fair between owners: one owner's long queue does not hold another's run", async () => {
      const store = await open();
      const bob = `bob-${randomUUID()}`;
      const alice = `alice-${randomUUID()}`;
      const bobs: string[] = [];
      for (let i = 0; i < 30; i++) bobs.push((await enqueue(store, await newThread(store), "enqueue", bob)).runId);
      const alices = (await enqueue(store, await newThread(store), "enqueue", alice)).runId;
      expect(await store.pendingRunsOf?.(bob)).toBe(30);
      expect(await store.pendingRunsOf?.(alice)).toBe(1);
      // claims (never finished, so each owner's running count grows) until alice's run comes up
      let bobsBefore = 0;
      for (let i = 0; i < 200; i++) {
        const run = await store.claimNext("fair");
        if (!run || run.runId === alices) break;
        if (bobs.includes(run.runId)) bobsBefore++;
      }
      expect((await store.getRun(alices))?.status).toBe("running");
      expect(bobsBefore).toBeLessThanOrEqual(1);
    });

    it.skipIf(skip)("lists a thread's runs newest first by status and page; deletes one", async () => {
      const store = await open();
      const threadId = await newThread(store);
      const a = await enqueue(store, threadId);
      const b = await enqueue(store, threadId);
      await claim(store, "w1", a.runId);
      await store.finishRun(a.runId, 1, { ...done, threadStatus: "busy" });
      const all = await store.listRuns(threadId, { limit: 10, offset: 0 });
      expect(all.map((r) => r.runId).sort()).toEqual([a.runId, b.runId].sort());
      expect((await store.listRuns(threadId, { limit: 10, offset: 0, status: "success" })).map((r) => r.runId)).toEqual(
        [a.runId],
      );
      expect(await store.listRuns(threadId, { limit: 1, offset: 0 })).toHaveLength(1);
      await store.deleteRun(b.runId);
      expect(await store.getRun(b.runId)).toBeUndefined();
    });
  });
}
