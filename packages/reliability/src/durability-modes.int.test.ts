import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointTuple } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { expectedTokens, ledgerGraph } from "./fixtures/ledger-graph.js";
import { asyncCrash } from "./fixtures/scenarios.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { auditValues, Ledger } from "./harness/ledger.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";
import { verifyThread } from "./harness/verify-thread.js";
import type { GraphJob } from "./workers/graph-worker.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-durability-"));
const driver = new CrashDriver({ script: GRAPH_WORKER });

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** What a test compares to tell "the thread is exactly as it was". */
function fingerprint(history: CheckpointTuple[]) {
  return history.map((t) => ({ id: t.checkpoint.id, values: t.values, writes: t.pendingWrites }));
}

describe("durability modes under SIGKILL", () => {
  for (const kind of ["sqlite", "postgres", "redis"] as const) {
    it.skipIf(!available[kind])(
      `${kind}: async loses at most the last step, leaves no torn checkpoint, and continues to the same end`,
      async () => {
        const target = newTarget(kind, dir);
        const saver = openSaver(target);
        const threadId = `async-${kind}`;
        const ledgerFile = join(dir, `${threadId}.ledger.db`);
        const job: GraphJob = { target, ledger: ledgerFile, threadId, rounds: 3, runId: `run-${threadId}` };
        try {
          // The saver lags 40 ms behind every step: without a bound, puts would queue up and a crash
          // would lose every step still in the queue.
          const r = await asyncCrash(driver, { target, saver, dir }, { threadId, rounds: 3, killAt: "start:plan:2" });
          console.log(
            `[reliability] async ${kind}: killed with step ${r.completed} complete in memory; stored head is step ${r.head} (${r.lost} step(s) lost)`,
          );
          expect(r.completed).toBe(5); // it died as round 2 began
          expect(r.lost).toBeLessThanOrEqual(1);
          const last = driver.start({ ...job, durability: "sync" });
          expect((await last.next("done", 60_000)).status).toBe("done");
          const end = await verifyThread(saver, threadId);
          expect(end.problems).toEqual([]);
          const audit = auditValues(expectedTokens(3), (end.checkpoints[0]?.values.log ?? []) as string[]);
          expect(audit).toEqual({ lost: [], duplicated: [], unexpected: [] });
        } finally {
          await saver.close?.();
          await disposeTarget(target);
        }
      },
    );

    it.skipIf(!available[kind])(`${kind}: exit leaves the thread exactly as before the run when killed`, async () => {
      const target = newTarget(kind, dir);
      const saver = openSaver(target);
      const threadId = `exit-${kind}`;
      const ledgerFile = join(dir, `${threadId}.ledger.db`);
      const ledger = Ledger.open(ledgerFile);
      try {
        // The thread before: one finished round, stored with sync durability.
        const first = ledgerGraph({ saver, ledger, rounds: 1, point: async () => {} });
        expect((await first.run({ log: [] }, { threadId })).status).toBe("done");
        const before = fingerprint((await verifyThread(saver, threadId)).checkpoints);
        const bytes = await saver.storedBytes?.(threadId);
        expect(before).toHaveLength(4); // input, plan, w1 ∥ w2 ∥ w3, gather

        // A second run (two more rounds) with exit durability, killed in its last round.
        const job: GraphJob = { target, ledger: ledgerFile, threadId, rounds: 3, durability: "exit", withInput: true };
        const killed = driver.start({ ...job, killAt: "start:w3:2" });
        expect((await killed.exit).signal).toBe("SIGKILL");
        expect(ledger.count("end", "gather:1")).toBe(1); // the run got far before it died

        const after = await verifyThread(saver, threadId);
        expect(after.problems).toEqual([]);
        expect(fingerprint(after.checkpoints)).toEqual(before);
        expect(await saver.storedBytes?.(threadId)).toBe(bytes);
        console.log(
          `[reliability] exit ${kind}: killed after ${ledger.count("end")} node runs; thread unchanged (${before.length} checkpoints, ${bytes} bytes)`,
        );
      } finally {
        ledger.close();
        await saver.close?.();
        await disposeTarget(target);
      }
    });
  }
});
