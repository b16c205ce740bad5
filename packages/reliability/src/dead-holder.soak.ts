/**
 * The long dead-holder takeover runs (`npm run test:soak`): on SQLite, PostgreSQL and Redis, one thread
 * passes through a chain of processes under one run id and the default 30 s lease, each SIGKILLed while
 * it holds the thread — at every kind of named point, then at 20 random moments — and the next one,
 * waiting on this host, must hold the thread within 2 s; the thread must end whole. Then three
 * executors of one run id stalled with SIGSTOP past a 2 s lease are fenced. Prints the takeover
 * times; docs/reliability.md quotes them. The short version is dead-holder.int.test.ts.
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

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const KINDS = ["sqlite", "postgres", "redis"] as const;
const dir = mkdtempSync(join(tmpdir(), "trellis-takeover-soak-"));
const driver = new CrashDriver({ script: TAKEOVER_WORKER });
afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const RANDOM_KILLS = 20;
/** Named points in the order a run reaches them (round r: steps 3r, 3r+1, 3r+2). */
const NAMED = [
  "start:plan:0",
  "mid-superstep:0",
  "after-put-writes:w1:1",
  "before-put:4",
  "after-put:5",
  "start:gather:2",
  "mid-superstep:3",
  "before-put:13",
];

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

describe("soak: dead-holder takeover", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: ${NAMED.length} kills at named points and ${RANDOM_KILLS} at random moments, each holder's thread taken over within 2 s`,
      { timeout: 600_000 },
      async () => {
        await withPlace(kind, async (place) => {
          const named = await takeoverChain(driver, place, {
            threadId: `named-${kind}`,
            rounds: 8,
            kills: NAMED,
            workMs: 10,
          });
          console.log(
            `[reliability] soak takeover ${kind}, ${NAMED.length} named points: takeover ${describeTakeovers(named.takeoverMs)}, ${named.busy} THREAD_BUSY, ${named.chain.checkpoints.length} checkpoints; lost ${named.lost.length}, duplicated ${named.duplicated.length}, re-run ${named.reruns.length}, effects repeated ${named.repeatedEffects.length}, chain problems ${named.chain.problems.length}`,
          );
          expectSoundTakeovers(named);
          const random = await takeoverChain(driver, place, {
            threadId: `random-${kind}`,
            // Each process dies 50-600 ms after it took the thread, ~10 rounds in at most: 300 rounds
            // outlast the 20 kills.
            rounds: 300,
            kills: Array.from({ length: RANDOM_KILLS }, () => "random"),
            workMs: 50,
            random: seeded(kind.length * 7919),
            window: [50, 600],
          });
          console.log(
            `[reliability] soak takeover ${kind}, ${RANDOM_KILLS} random kills: takeover ${describeTakeovers(random.takeoverMs)}, ${random.busy} THREAD_BUSY, ${random.chain.checkpoints.length} checkpoints; lost ${random.lost.length}, duplicated ${random.duplicated.length}, re-run ${random.reruns.length}, effects repeated ${random.repeatedEffects.length}, chain problems ${random.chain.problems.length}`,
          );
          expectSoundTakeovers(random);
          expect(random.kills).toBe(RANDOM_KILLS);

          let busy = 0;
          for (let rep = 0; rep < 3; rep++) {
            const r = await sameRunIdStall(driver, place, `same-run-${kind}-${rep}`);
            busy += r.busy;
            expect(r.epochs[1]).toBeGreaterThan(r.epochs[0] as number);
            expect(r.refused.code).toBe("LEASE_LOST");
            expect({ unchanged: r.unchanged, forked: r.forked, problems: r.chain.problems }).toEqual({
              unchanged: true,
              forked: false,
              problems: [],
            });
          }
          console.log(
            `[reliability] soak same run id ${kind}: 3 stalled executors fenced (LEASE_LOST, 0 rows landed, no fork); the second executors waited out the live lease (${busy} THREAD_BUSY)`,
          );
        });
      },
    );
  }
});
