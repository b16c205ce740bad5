/**
 * Dead-holder takeover (issue 17) and one holder per execution (issue 19), through real processes on
 * SQLite, PostgreSQL and Redis: a writer SIGKILLed while it holds a thread's 30 s lease leaves the
 * thread resumable by another process of this host at once; a process that cannot judge the holder
 * (as one of another host) still waits for the TTL; two executors of one run id never share a lease.
 * The long version is dead-holder.soak.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  describeTakeovers,
  expectSoundTakeovers,
  sameRunIdStall,
  TAKEOVER_WORKER,
  takeoverChain,
} from "./fixtures/takeover.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";
import type { TakeoverJob } from "./workers/takeover-worker.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const KINDS = ["sqlite", "postgres", "redis"] as const;
const dir = mkdtempSync(join(tmpdir(), "trellis-takeover-"));
const driver = new CrashDriver({ script: TAKEOVER_WORKER });

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function withPlace<T>(kind: SaverKind, fn: (place: Parameters<typeof takeoverChain>[1]) => Promise<T>) {
  const target = newTarget(kind, dir);
  const saver = openSaver(target);
  try {
    return await fn({ target, saver, dir });
  } finally {
    await saver.close?.();
    await disposeTarget(target);
  }
}

// Steps of the ledger graph: round r is step 3r (plan), 3r+1 (w1 ∥ w2 ∥ w3), 3r+2 (gather).
const KILLS = ["mid-superstep:0", "after-put-writes:w1:1", "before-put:7", "random"];

describe("a writer SIGKILLed while it holds the thread: another process of this host takes over at once", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: ${KILLS.length} kills, each thread resumed within 2 s under a 30 s lease; nothing lost or applied twice`,
      { timeout: 120_000 },
      async () => {
        await withPlace(kind, async (place) => {
          const out = await takeoverChain(driver, place, {
            threadId: `takeover-${kind}`,
            rounds: 24, // long enough that the random kill finds the run still going
            kills: KILLS,
            workMs: 20,
            window: [30, 300],
          });
          console.log(
            `[reliability] dead-holder takeover ${kind}: ${out.kills} SIGKILLs of the lease holder (30 s lease), takeover ${describeTakeovers(out.takeoverMs)}, ${out.busy} THREAD_BUSY, epochs ${out.epochs.join("→")}; lost ${out.lost.length}, duplicated ${out.duplicated.length}, re-run ${out.reruns.length}, chain problems ${out.chain.problems.length}`,
          );
          expectSoundTakeovers(out);
        });
      },
    );
  }
});

describe("a process that cannot judge the dead holder (as one of another host) waits for the lease's TTL", () => {
  it.skipIf(!available.postgres)("postgres: THREAD_BUSY until the 2 s lease expired, then it continues", async () => {
    await withPlace("postgres", async (place) => {
      const ttl = 2_000;
      const job: TakeoverJob = {
        target: place.target,
        ledger: join(dir, "elsewhere.ledger.db"),
        threadId: "elsewhere",
        rounds: 2,
        leaseTtlMs: ttl,
        runId: "run-elsewhere",
      };
      const taker = driver.start({ ...job, cannotJudge: true, waitForGo: true });
      await taker.next("ready", 30_000);
      const victim = driver.start({ ...job, killAt: "mid-superstep:0" });
      await victim.exit;
      const killedAt = Date.now();
      taker.send({ type: "go" });
      const acquired = await taker.next("acquired", 20_000);
      const waited = Date.now() - killedAt;
      expect((await taker.next("done", 20_000)).status).toBe("done");
      console.log(
        `[reliability] dead holder, judged from "another host": ${acquired.busy} THREAD_BUSY, thread taken ${waited} ms after the kill (lease TTL ${ttl} ms)`,
      );
      expect(Number(acquired.busy)).toBeGreaterThan(0);
      expect(waited).toBeGreaterThan(1_000); // what was left of the lease (renewed every third of it)
    });
  });
});

describe("two executors of one run id (issue 19): the second is a new holder, the stalled first is fenced", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: refused while the first's lease lives, then a higher epoch; the first gets LEASE_LOST; one head, no fork`,
      { timeout: 60_000 },
      async () => {
        await withPlace(kind, async (place) => {
          const r = await sameRunIdStall(driver, place, `same-run-${kind}`);
          console.log(
            `[reliability] same run id ${kind}: second executor waited (${r.busy} THREAD_BUSY) for the stalled first's lease, epochs ${r.epochs.join("→")}; the first, continued, got ${String(r.refused.code)}; chain unchanged ${r.unchanged}, forked ${r.forked}`,
          );
          expect(r.busy).toBeGreaterThan(0);
          expect(r.epochs[1]).toBeGreaterThan(r.epochs[0] as number);
          expect(r.done.status).toBe("done");
          expect(r.refused.code).toBe("LEASE_LOST");
          expect(r.unchanged).toBe(true);
          expect(r.forked).toBe(false);
          expect(r.chain.problems).toEqual([]);
          expect(r.audit).toEqual({ lost: [], duplicated: [], unexpected: [] });
        });
      },
    );
  }
});
