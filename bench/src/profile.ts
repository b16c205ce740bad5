import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Runtime } from "./workload.js";
import { workloadById } from "./workloads/index.js";

/**
 * Runs one workload for one runtime `runs` times in this process, for a profiler:
 *
 *   node --cpu-prof --cpu-prof-dir=prof bench/dist/profile.js a-chain/none trellis 300
 *   node bench/dist/profile-summary.js prof/*.cpuprofile
 */
async function main(): Promise<void> {
  const [id = "a-chain/none", runtime = "trellis", runsText = "100"] = process.argv.slice(2);
  const tmpDir = mkdtempSync(join(tmpdir(), "trellis-profile-"));
  try {
    const impl = await workloadById(id).make(runtime as Runtime, { tiny: false, tmpDir });
    const runs = Number.parseInt(runsText, 10);
    const start = performance.now();
    for (let i = 0; i < runs; i++) {
      const trial = await impl.trial();
      await trial.run();
      await trial.dispose?.();
    }
    const ms = performance.now() - start;
    process.stderr.write(`${id} ${runtime}: ${runs} runs, ${(ms / runs).toFixed(2)} ms per run (setup included)\n`);
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

void main();
