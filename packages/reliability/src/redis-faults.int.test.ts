import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect, putStep, stepRequest, uniqueThreadId } from "@trellis/checkpoint/testing";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToEnd } from "./fixtures/run-to-end.js";
import { FaultProxy } from "./harness/fault-proxy.js";
import { Ledger } from "./harness/ledger.js";
import { deleteKeys, REDIS_URL, requireRedis, runLabel } from "./harness/services.js";

const available = await requireRedis();
const upstreamPort = Number(new URL(REDIS_URL).port || 6379);

describe.skipIf(!available)("RedisSaver over a connection that breaks", () => {
  const prefix = `${runLabel("redis_conn")}:`;
  const dir = mkdtempSync(join(tmpdir(), "trellis-redis-faults-"));
  let proxy: FaultProxy;
  let saver: RedisSaver;
  let direct: RedisSaver;
  let ids = 0;
  const nextId = () => `cp-${String(++ids).padStart(6, "0")}`;

  beforeAll(async () => {
    proxy = await FaultProxy.start(upstreamPort);
    saver = new RedisSaver({ url: proxy.url(REDIS_URL), keyPrefix: prefix });
    saver.client.on("error", () => {});
    direct = new RedisSaver({ url: REDIS_URL, keyPrefix: prefix });
  });

  afterAll(async () => {
    try {
      await saver?.close();
      await direct?.close();
      await proxy?.close();
    } finally {
      // Whatever failed above, the keys of this run go.
      await deleteKeys(prefix);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const when of ["before", "after"] as const) {
    it(`a put whose connection drops ${when} the script reached Redis is stored exactly once, whole`, async () => {
      const threadId = uniqueThreadId();
      const lease = await saver.acquireLease(threadId, "w1", 60_000);
      const first = await putStep(saver, { threadId, id: nextId(), full: { m: ["a"] }, lease });
      const request = stepRequest({
        threadId,
        id: nextId(),
        parent: first,
        append: { m: ["b"] },
        writes: [
          { taskId: "t1", channel: "m", value: 1 },
          { taskId: "t2", channel: "m", value: 2 },
        ],
        lease,
      });
      const cutsBefore = proxy.cuts;
      // The checkpoint id travels in the put's arguments only.
      proxy.cutOnce({ match: request.checkpoint.id, when });
      const outcome = await saver.put(request).then(
        () => "stored",
        (e: Error) => `failed: ${e.message}`,
      );
      expect(proxy.cuts).toBe(cutsBefore + 1);
      // Whether the client heard back or not, a retry must be harmless and leave one copy.
      if (outcome !== "stored") await saver.put(request);
      const history = await collect(direct.list(threadId));
      expect(history.map((t) => t.checkpoint.id)).toEqual([request.checkpoint.id, first.id]);
      expect(history[0]?.values).toEqual({ m: ["a", "b"] });
      expect(history[0]?.pendingWrites).toEqual(request.writes);
      console.log(`[reliability] redis put cut ${when} the script: ${outcome}; stored once`);
    });
  }

  it("putWrites cut after reaching Redis and sent again keeps one copy of each write, in order", async () => {
    const threadId = uniqueThreadId();
    const cp = await putStep(saver, { threadId, id: nextId(), full: { x: 0 } });
    await saver.putWrites({ threadId, checkpointId: cp.id }, [{ taskId: "a", channel: "x", value: 1 }]);
    proxy.cutOnce({ match: "task-b-unique", when: "after" });
    const writes = [
      { taskId: "task-b-unique", channel: "x", value: 2 },
      { taskId: "a", channel: "x", value: 3 },
    ];
    await saver
      .putWrites({ threadId, checkpointId: cp.id }, writes)
      .catch(() => saver.putWrites({ threadId, checkpointId: cp.id }, writes));
    expect((await direct.get({ threadId }))?.pendingWrites).toEqual([
      { taskId: "a", channel: "x", value: 3 },
      { taskId: "task-b-unique", channel: "x", value: 2 },
    ]);
  });

  it("close() right after the connection was reset (before the client noticed) still resolves", async () => {
    let failed = 0;
    for (let i = 0; i < 5; i++) {
      const other = new RedisSaver({ url: proxy.url(REDIS_URL), keyPrefix: prefix });
      other.client.on("error", () => {});
      await other.get({ threadId: "nobody" });
      proxy.cutAll();
      await other.close().catch(() => failed++);
      expect(other.client.status).toBe("end");
    }
    expect(failed).toBe(0);
  });

  it("a graph run whose connection is reset at random moments (and once held up 300 ms) ends whole", async () => {
    const ledger = Ledger.open(join(dir, "redis-cuts.ledger.db"));
    const random = seeded(11);
    let cuts = 0;
    let stop = false;
    const injector = (async () => {
      while (!stop && cuts < 20) {
        await new Promise((resolve) => setTimeout(resolve, 15 + random() * 45));
        if (stop) break;
        cuts += proxy.cutAll();
        if (cuts === 5) {
          proxy.delay(300);
          await new Promise((resolve) => setTimeout(resolve, 400));
          proxy.delay(0);
        }
      }
    })();
    try {
      const out = await runToEnd({
        saver,
        checker: direct,
        ledger,
        threadId: "redis-cut-thread",
        rounds: 6,
        workMs: 10,
      });
      stop = true;
      await injector;
      console.log(
        `[reliability] redis cuts: ${cuts} connections reset during the run, ${out.attempts} attempt(s) (${out.failures.length} failed), ${out.checkpoints} checkpoints — lost ${out.lost.length}, duplicated ${out.duplicated.length}, re-run ${out.reruns.length}, problems ${out.problems.length}`,
      );
      expect(cuts).toBeGreaterThan(0);
      expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
    } finally {
      stop = true;
      await injector;
      ledger.close();
    }
  });
});

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
