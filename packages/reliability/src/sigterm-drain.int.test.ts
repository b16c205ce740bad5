import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { expectedTokens } from "./fixtures/ledger-graph.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { auditValues, Ledger, rerunsAfterDurable } from "./harness/ledger.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres } from "./harness/services.js";
import { verifyThread } from "./harness/verify-thread.js";
import type { GraphJob } from "./workers/graph-worker.js";

const available: Partial<Record<SaverKind, boolean>> = { sqlite: true, postgres: await requirePostgres() };
const dir = mkdtempSync(join(tmpdir(), "trellis-sigterm-"));
const driver = new CrashDriver({ script: GRAPH_WORKER });

afterAll(async () => {
  await driver.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("SIGTERM drains a run at the next step boundary", () => {
  for (const kind of ["sqlite", "postgres"] as const) {
    it.skipIf(!available[kind])(
      `${kind}: the step in progress finishes and is stored, then the process exits; a new process finishes with nothing lost or re-run`,
      async () => {
        const target = newTarget(kind, dir);
        const saver = openSaver(target);
        const threadId = `drain-${kind}`;
        const ledgerFile = join(dir, `${threadId}.ledger.db`);
        const job: GraphJob = { target, ledger: ledgerFile, threadId, rounds: 3, drainOnSigterm: true, workMs: 20 };
        const ledger = Ledger.open(ledgerFile);
        try {
          const first = driver.start({ ...job, holdAt: ["mid-superstep:1"] });
          await first.next("point");
          first.signal("SIGTERM");
          await first.next("sigterm");
          first.send({ type: "continue" });
          const stopped = await first.next("done");
          expect(stopped.status).toBe("interrupted");
          expect(await first.exit).toEqual({ code: 0, signal: null });

          // The superstep that was running when SIGTERM came (w1 ∥ w2 ∥ w3 of round 1) finished and
          // was stored; nothing after it began.
          const entries = ledger.entries();
          const sigterm = entries.findIndex((e) => e.kind === "point" && e.token === "sigterm");
          const startedAfter = entries.slice(sigterm).filter((e) => e.kind === "start");
          expect(startedAfter).toEqual([]);
          expect(ledger.count("end", "w2:1")).toBe(1);
          expect(ledger.count("start", "gather:1")).toBe(0);
          const paused = await verifyThread(saver, threadId);
          expect(paused.problems).toEqual([]);
          expect(paused.checkpoints[0]?.checkpoint.step).toBe(4);
          expect(paused.checkpoints[0]?.checkpoint.next.map((t) => t.node)).toEqual(["gather"]);

          const second = driver.start(job);
          expect((await second.next("done")).status).toBe("done");
          const end = await verifyThread(saver, threadId);
          expect(end.problems).toEqual([]);
          const log = (end.checkpoints[0]?.values.log ?? []) as string[];
          expect(auditValues(expectedTokens(3), log)).toEqual({ lost: [], duplicated: [], unexpected: [] });
          expect(rerunsAfterDurable(ledger.entries())).toEqual([]);
          expect(ledger.count("start")).toBe(15); // each node of each round ran exactly once
          console.log(
            `[reliability] SIGTERM ${kind}: drained at step 4 with ${startedAfter.length} tasks started after the signal; resumed to ${end.checkpoints.length} checkpoints, ${ledger.count("start")} node runs for 15 nodes`,
          );
        } finally {
          ledger.close();
          await saver.close?.();
          await disposeTarget(target);
        }
      },
    );
  }
});
