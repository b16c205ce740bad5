import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Impl, Runtime } from "./workload.js";
import { workloadById } from "./workloads/index.js";

/**
 * Runs one workload for Trellis and LangGraph.js alternately in this process and prints the median CPU
 * time (user + system) and wall time per run of each, and their ratios. On a machine busy with other
 * work, wall times of short runs are mostly waiting for a core; CPU time is steadier:
 *
 *   node bench/dist/cpu-side-by-side.js g-wide-dict/none 30
 *
 * A third argument names other runtimes, each compared with the first (the compat layer's cost):
 *
 *   node bench/dist/cpu-side-by-side.js c-fanout/100 300 trellis,compat
 */
async function main(): Promise<void> {
  const [id = "g-wide-dict/none", runsText = "30", runtimesText = "trellis,langgraph"] = process.argv.slice(2);
  const runs = Number.parseInt(runsText, 10);
  const tmpDir = mkdtempSync(join(tmpdir(), "trellis-cpu-"));
  try {
    const workload = workloadById(id);
    const runtimes = runtimesText.split(",") as Runtime[];
    const impls = new Map<Runtime, Impl>();
    for (const runtime of runtimes) impls.set(runtime, await workload.make(runtime, { tiny: false, tmpDir }));
    const cpu = new Map<Runtime, number[]>(runtimes.map((r) => [r, []]));
    const wall = new Map<Runtime, number[]>(runtimes.map((r) => [r, []]));
    for (let i = -2; i < runs; i++) {
      for (const runtime of runtimes) {
        const trial = await (impls.get(runtime) as Impl).trial();
        const cpu0 = process.cpuUsage();
        const wall0 = performance.now();
        await trial.run();
        const ms = performance.now() - wall0;
        const used = process.cpuUsage(cpu0);
        await trial.dispose?.();
        if (i < 0) continue; // warm-up
        cpu.get(runtime)?.push((used.user + used.system) / 1000);
        wall.get(runtime)?.push(ms);
      }
    }
    if (runtimesText !== "trellis,langgraph") {
      const of = (r: Runtime) => ({ cpu: median(cpu.get(r) ?? []), wall: median(wall.get(r) ?? []) });
      const base = of(runtimes[0] as Runtime);
      const parts = runtimes.map((r) => {
        const m = of(r);
        return `${r} CPU ${m.cpu.toFixed(2)} ms (${(m.cpu / base.cpu).toFixed(2)}x), wall ${m.wall.toFixed(2)} ms (${(m.wall / base.wall).toFixed(2)}x)`;
      });
      process.stdout.write(`${id}, median of ${runs}: ${parts.join(" | ")}\n`);
      return;
    }
    const t = { cpu: median(cpu.get("trellis") ?? []), wall: median(wall.get("trellis") ?? []) };
    const lg = { cpu: median(cpu.get("langgraph") ?? []), wall: median(wall.get("langgraph") ?? []) };
    process.stdout.write(
      `${id}, median of ${runs}: Trellis CPU ${t.cpu.toFixed(2)} ms, wall ${t.wall.toFixed(2)} ms | LangGraph.js CPU ${lg.cpu.toFixed(2)} ms, wall ${lg.wall.toFixed(2)} ms | T/LG CPU ${(t.cpu / lg.cpu).toFixed(3)}, wall ${(t.wall / lg.wall).toFixed(3)}\n`,
    );
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

void main();
