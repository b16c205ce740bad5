import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compatRows, compatTable } from "./compat-report.js";
import { checkGoals, goalsTable, perUnitTable, resultsTable } from "./report.js";
import { runWorkload, type WorkloadResult } from "./runner.js";
import { runServerBench, serverGoals, serverTable } from "./server/server-bench.js";
import { COMPAT_RUNTIMES } from "./workload.js";
import { allWorkloads } from "./workloads/index.js";

const HELP = `Usage: npm run bench -- [--quick] [--json] [--only <text>] [--runs <n>]

  --quick       fewer runs (finishes in under 2 minutes)
  --json        print the results as JSON on stdout (progress still goes to stderr)
  --only TEXT   run only workloads whose id contains TEXT (repeatable), e.g. --only fanout
  --runs N      timed runs per workload, overriding the defaults
  --save FILE   also write the JSON results to FILE
  --compat      the compat table instead: each LangGraph.js implementation on @trellis/langgraph
                (only its import changed), against native Trellis and LangGraph.js
  --server      the server bench instead: Trellis' HTTP server, its floor and (with --langgraph-api)
                LangGraph's dev server, over loopback HTTP
  --langgraph-api DIR
                a directory where \`npm install @langchain/langgraph-api\` was run (default: the
                TRELLIS_BENCH_LANGGRAPH_API environment variable; without it that column is skipped)
`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      only: { type: "string", multiple: true },
      runs: { type: "string" },
      save: { type: "string" },
      server: { type: "boolean", default: false },
      compat: { type: "boolean", default: false },
      "langgraph-api": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  if (values.server) {
    await serverMain(values.quick, values.json, values.save, values["langgraph-api"]);
    return;
  }
  const only = values.only ?? [];
  const workloads = allWorkloads().filter(
    (w) => (only.length === 0 || only.some((o) => w.id.includes(o))) && (!values.compat || w.compat === true),
  );
  const runs = values.runs === undefined ? undefined : Number.parseInt(values.runs, 10);
  const tmpDir = mkdtempSync(join(tmpdir(), "trellis-bench-"));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const started = Date.now();
  const results: WorkloadResult[] = [];
  try {
    for (const workload of workloads) {
      log(`${workload.id}: ${workload.title}`);
      results.push(
        await runWorkload(workload, {
          quick: values.quick,
          tmpDir,
          log,
          ...(runs !== undefined ? { runs } : {}),
          ...(values.compat ? { runtimes: COMPAT_RUNTIMES } : {}),
        }),
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
  if (values.compat) {
    const rows = compatRows(results);
    const text = `${JSON.stringify({ date: new Date().toISOString(), quick: values.quick, seconds, machine, rows }, null, 2)}\n`;
    if (values.save) writeFileSync(values.save, text);
    process.stdout.write(
      values.json
        ? text
        : `@trellis/langgraph vs native Trellis and LangGraph.js — medians, ${seconds.toFixed(0)} s, load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(" ")}\n\n${compatTable(rows)}\n`,
    );
    return;
  }
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

async function serverMain(
  quick: boolean,
  json: boolean,
  save: string | undefined,
  langgraphDir = process.env.TRELLIS_BENCH_LANGGRAPH_API,
): Promise<void> {
  const tmpDir = mkdtempSync(join(tmpdir(), "trellis-server-bench-"));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const started = Date.now();
  let result: Awaited<ReturnType<typeof runServerBench>>;
  try {
    result = await runServerBench({ quick, tmpDir, langgraphDir, log });
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
  const seconds = (Date.now() - started) / 1000;
  const goals = serverGoals(result);
  const text = `${JSON.stringify({ date: new Date().toISOString(), quick, seconds, result, goals }, null, 2)}\n`;
  if (save) writeFileSync(save, text);
  if (json) {
    process.stdout.write(text);
    return;
  }
  const out = [
    `Trellis server vs its floor${result.servers.langgraph ? " and LangGraph's dev server" : ""} — medians over ${result.rounds} rounds (range), ${seconds.toFixed(0)} s`,
    `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown"}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
    ...(result.langgraphSkipped ? [`LangGraph dev server skipped: ${result.langgraphSkipped}`] : []),
    "",
    serverTable(result),
    "",
    ...goals.map((g) => `${g.met ? "met " : "MISS"}  ${g.goal}: ${g.value.toFixed(2)}×`),
    "",
  ];
  process.stdout.write(out.join("\n"));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
