import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { crashAndContinue, describeOutcome, GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-crash-sync-"));
const driver = new CrashDriver({ script: GRAPH_WORKER });

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

// Steps of the ledger graph: -1 is the input; round r is step 3r (plan), 3r+1 (w1 ∥ w2 ∥ w3), 3r+2 (gather).
const KILLS = [
  "mid-superstep:0", // w1 and w3 stored their results, w2 ran its durable step and is cut off
  "after-put-writes:w1:1", // the instant w1's result was stored, before its siblings and the checkpoint
  "before-put:4", // all three results of round 1 stored as pending writes, the step's checkpoint not yet
  "after-put:7", // the checkpoint of round 2's parallel step stored, the next step not begun
] as const;

describe("SIGKILL mid-superstep with sync durability, continued by a new process", () => {
  for (const kind of ["sqlite", "postgres", "redis"] as const) {
    it.skipIf(!available[kind])(
      `${kind}: nothing lost or duplicated, finished tasks not re-run, chain linear`,
      async () => {
        const target = newTarget(kind, dir);
        const saver = openSaver(target);
        try {
          const out = await crashAndContinue(driver, {
            target,
            saver,
            dir,
            threadId: `crash-${kind}`,
            rounds: 3,
            kills: KILLS,
          });
          console.log(describeOutcome(`sync ${kind}, kills at ${KILLS.join(", ")}`, out));
          expect(out.exits.slice(0, KILLS.length).map((e) => e.signal)).toEqual(KILLS.map(() => "SIGKILL"));
          expect(out.done.status).toBe("done");
          expect(out.lost).toEqual([]);
          expect(out.duplicated).toEqual([]);
          expect(out.unexpected).toEqual([]);
          expect(out.reruns).toEqual([]);
          expect(out.repeatedEffects).toEqual([]);
          expect(out.effectsRecorded).toBeGreaterThanOrEqual(3);
          expect(out.effectsInFlight).toBe(0); // every kill point lies after the durable step was recorded
          expect(out.chain.problems).toEqual([]);
          // The kills really cut work off: w2:0 was running when its process died, so it started twice.
          expect(out.starts).toBeGreaterThan(15);
          expect(out.chain.checkpoints).toHaveLength(10);
        } finally {
          await saver.close?.();
          await disposeTarget(target);
        }
      },
    );
  }
});
