/**
 * Long connection-fault runs (`npm run test:soak`): 16 threads on PostgreSQL and 16 on Redis run
 * through the fault proxy while connections are reset at random and the service "restarts" three
 * times (every connection reset, new ones refused for a second). Every thread must end whole, and no
 * attempt may be refused `THREAD_BUSY`: the only earlier holder of a thread is this process's own
 * failed attempt, whose lease is free at once. The short run of `npm test` is `faults-short.int.test.ts`.
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
const dir = mkdtempSync(join(tmpdir(), "trellis-faults-soak-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREADS = 16;
const OUTAGES = 3;

describe("soak: connection faults under load", () => {
  for (const kind of ["postgres", "redis"] as const) {
    it.skipIf(!available[kind])(
      `${kind}: ${THREADS} threads, random resets and ${OUTAGES} outages of 1 s`,
      { timeout: 600_000 },
      async () => {
        const run = await faultRun({ kind, dir, threads: THREADS, rounds: 20, outages: OUTAGES });
        console.log(`[reliability] soak faults ${kind}: ${run.summary}`);
        for (const out of run.outs) {
          expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
          expect(out.failures.filter((f) => f.includes("is busy"))).toEqual([]);
        }
        expect(run.cuts).toBeGreaterThan(0);
      },
    );
  }
});
