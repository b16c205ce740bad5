import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TICKS } from "./graphs.js";
import { hitlLatencies, runsPerSecond, sseFanOut } from "./scenarios.js";
import { type ServerKind, startTarget } from "./targets.js";

const tmpDir = mkdtempSync(join(tmpdir(), "trellis-server-bench-test-"));
afterAll(() => rmSync(tmpDir, { recursive: true, force: true }));

// Correctness only, at a tiny size: each scenario really pauses, resumes to the end, and delivers every
// event to every subscriber, on Trellis' server and on its floor. No timings. (LangGraph's dev server is
// not a dependency of the repository: the bench checks it the same way when given one.)
describe("server bench scenarios", () => {
  for (const kind of ["trellis", "floor"] as const satisfies readonly ServerKind[]) {
    it(`${kind}: (i) pauses twice and ends, (ii) answers every run, (iii) every subscriber gets every event`, async () => {
      const target = await startTarget(kind, tmpDir);
      try {
        const latencies = await hitlLatencies(target.url, 2);
        expect(latencies).toHaveLength(2);
        if (process.platform === "linux") expect(target.rssBytes()).toBeGreaterThan(0);
        expect(await runsPerSecond(target.url, 4, 8)).toBeGreaterThan(0);
        const fanOut = await sseFanOut(target.url, 5, TICKS);
        expect(fanOut.events).toBe(5 * TICKS);
        // the checks are not vacuous: a subscriber short of the expected events fails the scenario
        await expect(sseFanOut(target.url, 2, TICKS + 1)).rejects.toThrow(/received 20 of 21 updates/);
      } finally {
        await target.stop();
      }
    }, 60_000);
  }
});
