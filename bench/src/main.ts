import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { checkGoals, goalsTable, perUnitTable, resultsTable } from "./report.js";
import { runWorkload, type WorkloadResult } from "./runner.js";
import { allWorkloads } from "./workloads/index.js";

const HELP = `Usage: npm run bench -- [--quick] [--json] [--only <text>] [--runs <n>]

  --quick       fewer runs (finishes in under 2 minutes)
  --json        print the results as JSON on stdout (progress still goes to stderr)
  --only TEXT   run only workloads whose id contains TEXT (repeatable), e.g. --only fanout
  --runs N      timed runs per workload, overriding the defaults
  --save FILE   also write the JSON results to FILE
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      only: { type: "string", multiple: true },
      runs: { type: "string" },
      save: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const only = values.only ?? [];
  const workloads = allWorkloads().filter((w) => only.length === 0 || only.some((o) => w.id.includes(o)));
  const runs = values.runs === undefined ? undefined : Number.parseInt(values.runs, 10);
  const tmpDir = mkdtempSync(join(tmpdir(), "trellis-bench-"));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const started = Date.now();
  const results: WorkloadResult[] = [];
  try {
    for (const workload of workloads) {
      log(`${workload.id}: ${workload.title}`);
      results.push(
        await runWorkload(workload, { quick: values.quick, tmpDir, log, ...(runs !== undefined ? { runs } : {}) }),
      );
    }
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
  const machine = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    totalMemBytes: totalmem(),
    freeMemBytes: freemem(),
    platform: `${process.platform} ${process.arch}`,
  };
  const seconds = (Date.now() - started) / 1000;
  const goals = checkGoals(results);
  const json = `${JSON.stringify({ date: new Date().toISOString(), quick: values.quick, seconds, machine, results, goals }, null, 2)}\n`;
  if (values.save) writeFileSync(values.save, json);
  if (values.json) {
    process.stdout.write(json);
    return;
  }
  const out = [
    `Trellis vs LangGraph.js — medians, ${values.quick ? "quick" : "full"} run, ${seconds.toFixed(0)} s`,
    `node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${(machine.totalMemBytes / 2 ** 30).toFixed(0)} GiB`,
    "",
    resultsTable(results),
    "",
    perUnitTable(results),
    "",
    goalsTable(goals),
    "",
  ];
  process.stdout.write(out.join("\n"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
