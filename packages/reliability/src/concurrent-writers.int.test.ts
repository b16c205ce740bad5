import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { GRAPH_WORKER } from "./fixtures/crash-scenario.js";
import { resumeRace, staleWriter } from "./fixtures/scenarios.js";
import { CrashDriver } from "./harness/crash-driver.js";
import { disposeTarget, newTarget, openSaver, type SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

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
      try {
        const r = await resumeRace(resumers, { target, saver, dir }, `race-${kind}-${n}`, n);
        console.log(
          `[reliability] resume race ${kind} ×${n}: ${r.applied} applied, refused ${JSON.stringify(r.refusals)}, ${r.busy} THREAD_BUSY retries`,
        );
      } finally {
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
      try {
        const r = await staleWriter(graphs, { target, saver, dir }, `stale-${kind}`);
        console.log(
          `[reliability] stale writer ${kind}: paused past a 1 s lease, another process finished the thread (${r.checkpoints} checkpoints), the stale one got LEASE_LOST, 0 rows of it landed`,
        );
      } finally {
        await saver.close?.();
        await disposeTarget(target);
      }
    });
  }
});
