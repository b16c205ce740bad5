/**
 * Retention: finished runs and their events past the TTL are deleted (active runs never), idle threads
 * keep their latest N checkpoints, one process sweeps at a time; Redis wake-ups read by dead consumers
 * are reclaimed and the dead consumers removed.
 */
import { randomUUID } from "node:crypto";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { deletePrefix, REDIS_URL, requireRedis, testPrefix } from "@trellis/checkpoint-redis/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { channel, START, StateGraph } from "@trellis/core";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RetentionSweeper } from "../operations/retention.js";
import { newRunRecord } from "../runs/run-manager.js";
import { PostgresRunStore } from "../stores/postgres/postgres-run-store.js";
import type { RunStore } from "../stores/run-store.js";
import { SqliteRunStore } from "../stores/sqlite/sqlite-run-store.js";
import { RedisQueueWake } from "../streams/redis-fan-out.js";

const postgres = await requirePostgres();
const redis = await requireRedis();
const schema = testSchema("retention");
const prefix = testPrefix("retention");
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (postgres) await dropSchema(schema);
  if (redis) await deletePrefix(prefix);
});

async function open(kind: "sqlite" | "postgres"): Promise<{ store: RunStore; saver: CheckpointSaver }> {
  if (kind === "sqlite") {
    const saver = new SqliteSaver({ filename: ":memory:" });
    closers.push(async () => saver.close());
    return { saver, store: new SqliteRunStore(saver.database) };
  }
  const saver = new PostgresSaver({ connectionString: POSTGRES_URL, schema });
  await saver.setup();
  const store = new PostgresRunStore({ pool: saver.pool, schema });
  await store.setup();
  closers.push(async () => saver.close());
  return { saver, store };
}

async function finishedRun(store: RunStore, threadId: string, status: "success" | "pending" = "success") {
  const now = new Date().toISOString();
  await store.createThread(
    { threadId, createdAt: now, updatedAt: now, metadata: {}, status: "idle", owner: null, graphId: null, error: null },
    "do_nothing",
  );
  const run = newRunRecord({
    runId: randomUUID(),
    threadId,
    assistantId: "loop",
    metadata: {},
    kwargs: {
      input: {},
      command: null,
      config: {},
      streamMode: [],
      streamSubgraphs: false,
      interruptBefore: null,
      interruptAfter: null,
      checkpointId: null,
      durability: null,
    },
    multitaskStrategy: "enqueue",
    owner: null,
  });
  await store.enqueueRun(run, "enqueue");
  if (status === "pending") return run;
  for (let i = 0; i < 20; i++) {
    const claimed = await store.claimNext("w");
    if (claimed?.runId === run.runId) break;
  }
  await store.beginAttempt(run.runId, 1, {
    preCheckpointId: null,
    preWriteCount: 0,
    graphId: "loop",
    events: [{ event: "metadata", data: {} }],
  });
  await store.finishRun(run.runId, 1, {
    status,
    error: null,
    threadStatus: "idle",
    events: [{ event: "end", data: 1 }],
  });
  return run;
}

const loop = (saver: CheckpointSaver) =>
  new StateGraph({ n: channel.value(0) })
    .addNode("tick", (s) => ({ n: s.n + 1 }))
    .addEdge(START, "tick")
    .compile({ checkpointer: saver });

async function count(saver: CheckpointSaver, threadId: string): Promise<number> {
  let n = 0;
  for await (const _ of saver.list(threadId)) n++;
  return n;
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe.skipIf(kind === "postgres" && !postgres)(`retention (${kind})`, () => {
    it("deletes finished runs and their events past the TTL, never queued ones; trims idle threads", async () => {
      const { store, saver } = await open(kind);
      const old = await finishedRun(store, randomUUID());
      const queued = await finishedRun(store, randomUUID(), "pending");
      const threadId = randomUUID();
      const graph = loop(saver);
      for (let i = 0; i < 6; i++) await graph.invoke(i === 0 ? { n: 0 } : { n: i }, { threadId });
      await finishedRun(store, threadId);
      expect(await count(saver, threadId)).toBeGreaterThan(6);
      await new Promise((r) => setTimeout(r, 30));

      const sweeper = new RetentionSweeper({
        store,
        saver,
        settings: { runsTtlMs: 10, keepCheckpoints: 2, idleForMs: 10, sweepEveryMs: 60_000 },
      });
      const result = await sweeper.sweep();
      expect(result.swept).toBe(true);
      expect(result.runsDeleted).toBeGreaterThanOrEqual(2);
      expect(await store.getRun(old.runId)).toBeUndefined();
      expect(await store.eventsAfter(old.runId, 0)).toEqual([]);
      expect(["pending", "running"]).toContain((await store.getRun(queued.runId))?.status);
      expect(await count(saver, threadId)).toBe(2);
      expect((await graph.getState({ threadId })).values).toEqual({ n: 6 });
      // the thread goes on from its head
      await graph.invoke({ n: 10 }, { threadId });
      expect((await graph.getState({ threadId })).values).toEqual({ n: 11 });
    });

    it("one process sweeps at a time: a second sweep while the first holds the lease skips", async () => {
      const { store } = await open(kind);
      let inside = 0;
      let most = 0;
      // the lease's holder keeps it until the two other calls have answered (no clock: a fast commit
      // and a slow connection must not let a late call find the lease already given back)
      let giveBack = () => {};
      const held = new Promise<void>((resolve) => {
        giveBack = resolve;
      });
      const task = async () => {
        inside++;
        most = Math.max(most, inside);
        if (inside > 1) giveBack(); // two holders at once: let them end, the assertions below fail
        await held;
        inside--;
      };
      const calls = [1, 2, 3].map(() => store.exclusive("retention-test", 10_000, task));
      let answered = 0;
      for (const call of calls) {
        void call.then(() => {
          if (++answered === 2) giveBack();
        });
      }
      const results = await Promise.all(calls);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(most).toBe(1);
      // released: the next one runs
      expect(await store.exclusive("retention-test", 10_000, task)).toBe(true);
    });
  });
}

describe.skipIf(!redis)("redis wake-ups", () => {
  it("entries read by a dead consumer are reclaimed and the consumer removed", async () => {
    const wake = new RedisQueueWake({ url: REDIS_URL, prefix, deadAfterMs: 50 });
    closers.push(() => wake.close());
    const r = new Redis(REDIS_URL);
    closers.push(async () => r.disconnect());
    const key = `${prefix}queue`;
    await r.xgroup("CREATE", key, "workers", "$", "MKSTREAM").catch(() => undefined);
    await wake.notify();
    await wake.notify();
    // a worker that read two wake-ups and died before acknowledging them
    await r.xreadgroup("GROUP", "workers", "dead-worker", "COUNT", "10", "STREAMS", key, ">");
    const pending = (await r.xpending(key, "workers")) as [number, ...unknown[]];
    expect(pending[0]).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const cleaned = await wake.reclaim();
    expect(cleaned).toEqual({ entries: 2, consumers: 1 });
    expect(((await r.xpending(key, "workers")) as [number])[0]).toBe(0);
    const consumers = (await r.xinfo("CONSUMERS", key, "workers")) as unknown[][];
    expect(consumers.map((c) => c[1])).not.toContain("dead-worker");
  });

  it("a stopped listener leaves the group", async () => {
    const wake = new RedisQueueWake({ url: REDIS_URL, prefix: `${prefix}l:` });
    closers.push(() => wake.close());
    const r = new Redis(REDIS_URL);
    closers.push(async () => r.disconnect());
    const key = `${prefix}l:queue`;
    let woken = 0;
    const stop = wake.listen(() => woken++);
    let consumers: unknown[][] = [];
    for (let i = 0; i < 100 && woken === 0; i++) {
      await wake.notify();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let i = 0; i < 100 && consumers.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      consumers = (await r.xinfo("CONSUMERS", key, "workers").catch(() => [])) as unknown[][];
    }
    expect(consumers).toHaveLength(1);
    await stop();
    expect(await r.xinfo("CONSUMERS", key, "workers")).toEqual([]);
  });
});
