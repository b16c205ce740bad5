import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Runtime, Workload } from "./workload.js";
import { allWorkloads } from "./workloads/index.js";

const tmpDir = mkdtempSync(join(tmpdir(), "trellis-bench-test-"));
afterAll(() => rmSync(tmpDir, { recursive: true, force: true }));

async function runOnce(workload: Workload, runtime: Runtime) {
  const impl = await workload.make(runtime, { tiny: true, tmpDir });
  const trial = await impl.trial();
  try {
    const state = await trial.run();
    const storedBytes = await trial.storedBytes?.();
    return { digest: workload.digest(state, runtime), storedBytes };
  } finally {
    await trial.dispose?.();
  }
}

// Correctness only: each workload, at tiny size, ends in the same state on every runtime. No timings.
describe("bench workloads", () => {
  for (const workload of allWorkloads()) {
    it(`${workload.id}: Trellis ends in the same state as LangGraph.js and the floor`, async () => {
      const trellis = await runOnce(workload, "trellis");
      const langgraph = await runOnce(workload, "langgraph");
      const floor = await runOnce(workload, "floor");
      expect(trellis.digest).toEqual(floor.digest);
      expect(trellis.digest).toEqual(langgraph.digest);
      if (workload.saver !== "none") {
        expect(trellis.storedBytes).toBeGreaterThan(0);
        expect(langgraph.storedBytes).toBeGreaterThan(0);
      }
      if (workload.compat) {
        // the LangGraph.js implementation, on @trellis/langgraph
        const compat = await runOnce(workload, "compat");
        expect(compat.digest).toEqual(langgraph.digest);
        if (workload.saver !== "none") expect(compat.storedBytes).toBeGreaterThan(0);
      }
    });
  }
});
