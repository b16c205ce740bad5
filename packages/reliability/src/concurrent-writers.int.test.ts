import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointTuple } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { interruptGraph } from "./fixtures/interrupt-graph.js";
import { expectedTokens } from "./fixtures/ledger-graph.js";
import { CrashDriver, type WorkerMessage } from "./harness/crash-driver.js";
import { auditValues, Ledger } from "./harness/ledger.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";
import { verifyThread } from "./harness/verify-thread.js";
import type { GraphJob } from "./workers/graph-worker.js";
import type { ResumeJob } from "./workers/resume-worker.js";

const available: Record<SaverKind, boolean> = {
  sqlite: true,
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-writers-"));
const resumers = new CrashDriver({ script: new URL("./workers/resume-worker.ts", import.meta.url) });
const graphs = new CrashDriver({ script: GRAPH_WORKER });

afterAll(async () => {
  await resumers.dispose();
  await graphs.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const RACES: [SaverKind, number][] = [
  ["sqlite", 2],
  ["sqlite", 8],
  ["postgres", 8],
  ["redis", 4],
];

describe("several processes resume one interrupt at the same moment", () => {
  for (const [kind, n] of RACES) {
    it.skipIf(!available[kind])(`${kind}, ${n} processes: exactly one answer is applied`, async () => {
      const target = newTarget(kind, dir);
      const saver = openSaver(target);
      const threadId = `race-${kind}-${n}`;
      const ledgerFile = join(dir, `${threadId}.ledger.db`);
      const ledger = Ledger.open(ledgerFile);
      try {
        const paused = await interruptGraph({ saver }).run({ answers: [] }, { threadId });
        if (paused.status !== "interrupted") throw new Error(`expected a pause, got ${paused.status}`);
        const interruptId = paused.interrupts[0]?.id as string;
        const workers = Array.from({ length: n }, (_, i) =>
          resumers.start({ target, ledger: ledgerFile, threadId, interruptId, answer: `p${i}` } satisfies ResumeJob),
        );
        await Promise.all(workers.map((w) => w.next("ready")));
        for (const w of workers) w.send({ type: "go" });
        const reports = await Promise.all(
          workers.map(async (w) => {
            await w.exit;
            return w.messages.find((m) => m.type === "done" || m.type === "refused") as WorkerMessage;
          }),
        );
        const winners = reports.filter((r) => r.type === "done");
        const refusals = reports.filter((r) => r.type === "refused").map((r) => r.code);
        const busy = reports.reduce((sum, r) => sum + Number(r.busy ?? 0), 0);
        console.log(
          `[reliability] resume race ${kind} ×${n}: ${winners.length} applied, refused ${JSON.stringify(refusals)}, ${busy} THREAD_BUSY retries`,
        );
        expect(winners).toHaveLength(1);
        expect(winners[0]?.status).toBe("interrupted"); // now waiting at the second question
        // The others were turned away with a typed error: the interrupt they answer is gone.
        expect(refusals).toEqual(Array.from({ length: n - 1 }, () => "RESUME_MISMATCH"));
        expect(ledger.entries("answer")).toHaveLength(1);
        expect(ledger.count("start", "ask2")).toBe(1);
        const state = await verifyThread(saver, threadId);
        expect(state.problems).toEqual([]);
        const answers = state.checkpoints[0]?.values.answers as string[];
        expect(answers).toHaveLength(1);
        expect(answers[0]).toMatch(/^ask1=p\d$/);
        // The second question is still pending, unanswered.
        const head = state.checkpoints[0] as CheckpointTuple;
        expect(head.checkpoint.next.map((t) => t.node)).toEqual(["ask2"]);
        expect(head.pendingWrites.some((w) => w.channel === "__resume__")).toBe(false);
      } finally {
        ledger.close();
        await saver.close?.();
        await disposeTarget(target);
      }
    });
  }
});

describe("a writer paused past its lease (SIGSTOP) and continued (SIGCONT) is fenced", () => {
  for (const kind of ["sqlite", "postgres", "redis"] as const) {
    it.skipIf(!available[kind])(`${kind}: LEASE_LOST, and nothing it writes lands`, async () => {
      const target = newTarget(kind, dir);
      const saver = openSaver(target);
      const threadId = `stale-${kind}`;
      const ledgerFile = join(dir, `${threadId}.ledger.db`);
      const ledger = Ledger.open(ledgerFile);
      const job: GraphJob = { target, ledger: ledgerFile, threadId, rounds: 2, leaseTtlMs: 1_000 };
      try {
        // A: paused in the middle of round 0's parallel step (w1 and w3 already stored their results).
        const stale = graphs.start({ ...job, holdAt: ["mid-superstep:0"] });
        await stale.next("point");
        stale.signal("SIGSTOP");
        stale.send({ type: "continue" }); // read when it runs again
        await new Promise((resolve) => setTimeout(resolve, 1_500)); // its lease runs out meanwhile

        // B: takes the thread over once the lease expired and runs it to the end.
        const fresh = graphs.start(job);
        expect((await fresh.next("done")).status).toBe("done");
        await fresh.exit;
        const before = await verifyThread(saver, threadId);
        const bytes = await saver.storedBytes?.(threadId);

        // A wakes up, finishes w2 and tries to store it: refused.
        stale.signal("SIGCONT");
        const refused = await stale.next("error");
        expect(refused.code).toBe("LEASE_LOST");
        expect(refused.name).toBe("LeaseError");
        await stale.exit;
        const stalePid = stale.pid;
        expect(ledger.entries("end").some((e) => e.pid === stalePid && e.token === "w2:0")).toBe(true);

        const after = await verifyThread(saver, threadId);
        expect(after.problems).toEqual([]);
        expect(after.checkpoints.map((t) => [t.checkpoint.id, t.values, t.pendingWrites])).toEqual(
          before.checkpoints.map((t) => [t.checkpoint.id, t.values, t.pendingWrites]),
        );
        expect(await saver.storedBytes?.(threadId)).toBe(bytes);
        const log = after.checkpoints[0]?.values.log as string[];
        expect(auditValues(expectedTokens(2), log)).toEqual({ lost: [], duplicated: [], unexpected: [] });
        console.log(
          `[reliability] stale writer ${kind}: paused past a 1 s lease, another process finished the thread (${after.checkpoints.length} checkpoints), the stale one got LEASE_LOST, 0 rows of it landed`,
        );
      } finally {
        ledger.close();
        await saver.close?.();
        await disposeTarget(target);
      }
    });
  }
});
