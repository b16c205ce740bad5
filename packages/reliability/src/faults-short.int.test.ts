/**
 * The short connection-fault run of `npm test` (the long one is `faults.soak.ts`): a few threads on
 * PostgreSQL and on Redis through the fault proxy, with random connection resets and one outage (every
 * connection reset, new ones refused for half a second). Every thread must end whole, and no attempt
 * may be refused `THREAD_BUSY`: a failed attempt never holds its thread against this process's next.
 * A missing service skips loudly, and fails the run under CI=true.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { faultRun } from "./fixtures/fault-run.js";
import type { SaverKind } from "./harness/saver-targets.js";
import { requirePostgres, requireRedis } from "./harness/services.js";

const available: Partial<Record<SaverKind, boolean>> = {
  postgres: await requirePostgres(),
  redis: await requireRedis(),
};
const dir = mkdtempSync(join(tmpdir(), "trellis-faults-short-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("connection faults, short run", () => {
  for (const kind of ["postgres", "redis"] as const) {
    it.skipIf(!available[kind])(`${kind}: 4 threads, random resets and one outage`, { timeout: 60_000 }, async () => {
      // The outage comes early (the 6th tick, about half a second in), while every thread still runs.
      const run = await faultRun({ kind, dir, threads: 4, rounds: 8, outages: 1, outageMs: 500, outageEvery: 6 });
      console.log(`[reliability] short faults ${kind}: ${run.summary}`);
      for (const out of run.outs) {
        expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
        expect(out.failures.filter((f) => f.includes("is busy"))).toEqual([]);
      }
      expect(run.outages).toBe(1);
      expect(run.resets).toBeGreaterThan(0);
    });
  }
});
