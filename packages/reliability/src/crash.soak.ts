/**
 * The long crash runs (`npm run test:soak`): on SQLite, PostgreSQL and Redis, a sweep of SIGKILLs at
 * every kind of named point, a series of SIGKILLs at random moments, random kills under `async`
 * durability, resume races of 2-8 processes and SIGSTOP-paused writers, each repeated. Every run
 * prints its counts; docs/reliability.md quotes them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { crashAndContinue, describeOutcome, GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { asyncCrash, resumeRace, staleWriter } from "./fixtures/scenarios.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const KINDS = ["sqlite", "postgres", "redis"] as const;
const dir = mkdtempSync(join(tmpdir(), "trellis-soak-"));
const graphs = new CrashDriver({ script: GRAPH_WORKER });
const resumers = new CrashDriver({ script: new URL("./workers/resume-worker.ts", import.meta.url) });
afterAll(async () => {
  await graphs.dispose();
  await resumers.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const ROUNDS = 8;
const RANDOM_KILLS = 20;
/** Long enough that 20 processes killed at random moments each leave work for the next. */
const RANDOM_ROUNDS = 400;
/** Async runs are slower (their saver lags 40 ms a put): fewer rounds keep 20 kills within the run. */
const ASYNC_ROUNDS = 200;

/** Named points in the order a run reaches them: each process dies at the next one. */
function sweep(rounds: number): string[] {
  const points: string[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) points.push(`mid-superstep:${r}`, `before-put:${3 * r + 1}`, `after-put:${3 * r + 2}`);
    else {
      points.push(`after-put-writes:w1:${r}`, `start:gather:${r}`);
      if (r + 1 < rounds) points.push(`before-put:${3 * r + 3}`);
    }
  }
  return points;
}

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

async function withPlace<T>(
  kind: SaverKind,
  fn: (place: { target: ReturnType<typeof newTarget>; saver: ReturnType<typeof openSaver>; dir: string }) => Promise<T>,
) {
  const target = newTarget(kind, dir);
  const saver = openSaver(target);
  try {
    return await fn({ target, saver, dir });
  } finally {
    await saver.close?.();
    await disposeTarget(target);
  }
}

describe("soak: SIGKILL with sync durability", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: a kill at every kind of named point, then ${RANDOM_KILLS} at random moments`,
      { timeout: 600_000 },
      async () => {
        await withPlace(kind, async ({ target, saver }) => {
          const points = sweep(ROUNDS);
          const named = await crashAndContinue(graphs, {
            target,
            saver,
            dir,
            threadId: `sweep-${kind}`,
            rounds: ROUNDS,
            kills: points,
            job: { workMs: 10 },
          });
          console.log(describeOutcome(`soak sync ${kind}, ${points.length} named points`, named));
          const random = await crashAndContinue(graphs, {
            target,
            saver,
            dir,
            threadId: `random-${kind}`,
            rounds: RANDOM_ROUNDS,
            kills: Array.from({ length: RANDOM_KILLS }, () => "random"),
            job: { workMs: 60 },
            random: seeded(kind.length * 97),
            randomWindow: [300, 1_800],
          });
          console.log(describeOutcome(`soak sync ${kind}, ${RANDOM_KILLS} random kills`, random));
          for (const out of [named, random]) {
            expect(out.done.status).toBe("done");
            expect({ lost: out.lost, duplicated: out.duplicated, unexpected: out.unexpected }).toEqual({
              lost: [],
              duplicated: [],
              unexpected: [],
            });
            expect(out.reruns).toEqual([]);
            expect(out.repeatedEffects).toEqual([]);
            expect(out.chain.problems).toEqual([]);
            expect(out.errors).toEqual([]);
          }
          expect(named.kills).toBe(points.length);
          expect(random.kills).toBeGreaterThan(RANDOM_KILLS / 2);
        });
      },
    );
  }
});

describe("soak: SIGKILL with async durability", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: ${RANDOM_KILLS} random kills, at most one step lost each, never a torn checkpoint`,
      { timeout: 600_000 },
      async () => {
        await withPlace(kind, async (place) => {
          const random = seeded(kind.length * 131);
          const threadId = `async-soak-${kind}`;
          const lost: number[] = [];
          for (let i = 0; i < RANDOM_KILLS; i++) {
            const r = await asyncCrash(graphs, place, {
              threadId,
              rounds: ASYNC_ROUNDS,
              killAt: "random",
              window: [300, 1_800],
              random,
            });
            if (r.finished) break;
            lost.push(r.lost);
          }
          const tally: Record<number, number> = {};
          for (const l of lost) tally[l] = (tally[l] ?? 0) + 1;
          console.log(
            `[reliability] soak async ${kind}: ${lost.length} kills; steps lost per kill ${JSON.stringify(tally)}; 0 torn checkpoints`,
          );
          expect(Math.max(0, ...lost)).toBeLessThanOrEqual(1);
          expect(lost.length).toBeGreaterThan(0);
        });
      },
    );
  }
});

describe("soak: concurrent writers", () => {
  for (const kind of KINDS) {
    it.skipIf(!available[kind])(
      `${kind}: resume races of 2-8 processes (3 each) and 3 SIGSTOP-paused writers`,
      { timeout: 600_000 },
      async () => {
        await withPlace(kind, async (place) => {
          let races = 0;
          let refused = 0;
          let busy = 0;
          for (const n of [2, 4, 8]) {
            for (let rep = 0; rep < 3; rep++) {
              const r = await resumeRace(resumers, place, `race-${kind}-${n}-${rep}`, n);
              races++;
              refused += r.refusals.length;
              busy += r.busy;
            }
          }
          for (let rep = 0; rep < 3; rep++) await staleWriter(graphs, place, `stale-${kind}-${rep}`);
          console.log(
            `[reliability] soak writers ${kind}: ${races} resume races (2, 4, 8 processes) — exactly 1 answer applied in each, ${refused} refused with RESUME_MISMATCH, ${busy} THREAD_BUSY retries; 3 stale writers fenced with LEASE_LOST, 0 of their writes landed`,
          );
        });
      },
    );
  }
});
