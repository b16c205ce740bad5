import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createServer, loadConfig, type TrellisServer } from "@trellis/server";
import { makeProject, REPO_DIR, type TestProject } from "./cli-harness.js";

/** How a spawned `trellis` process ended and what it printed. */
export interface SpawnResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What {@link spawnCli} does while the process runs. */
export interface SpawnOptions {
  /** Typed one per question, each when its prompt (`… › `) appears; stdin ends after the last. */
  answers?: readonly string[];
  /** Called with everything printed so far, on every chunk of stdout. */
  onOutput?: (stdout: string, child: ChildProcessWithoutNullStreams) => void;
  /** Environment variables besides PATH. */
  env?: Record<string, string>;
  /** Node options before the bin (e.g. `--import` of a hook), after the ones that load it from source. */
  nodeArgs?: readonly string[];
}

/**
 * Runs the real `trellis` bin (`packages/cli/src/bin.ts` through tsx) as a child process in the
 * project's folder and answers its questions as a person would: each answer when its prompt is shown.
 *
 * @example
 * const r = await spawnCli(project, ["run", "approval-flow", "--input", '{"request":"x"}'], { answers: ["", "y"] });
 */
export function spawnCli(project: TestProject, argv: readonly string[], options: SpawnOptions = {}) {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@trellis/source",
      "--import",
      pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
      ...(options.nodeArgs ?? []),
      join(REPO_DIR, "packages/cli/src/bin.ts"),
      ...argv,
    ],
    { cwd: project.dir, stdio: ["pipe", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "", ...options.env } },
  );
  const answers = [...(options.answers ?? [])];
  let stdout = "";
  let stderr = "";
  let prompts = 0;
  if (answers.length === 0 && !options.onOutput) child.stdin.end();
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    const asked = stdout.split("› ").length - 1;
    for (; prompts < asked; prompts++) {
      const answer = answers.shift();
      if (answer === undefined) child.stdin.end();
      else if (answers.length === 0) child.stdin.end(`${answer}\n`);
      else child.stdin.write(`${answer}\n`);
    }
    options.onOutput?.(stdout, child);
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise<SpawnResult>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * A server on the project's own trellis.json and SQLite file (not listening: use `server.app.request`).
 * Close it before the next CLI command touches the file.
 *
 * @example
 * const server = await projectServer(project);
 * try { await server.app.request("/threads/t1"); } finally { await server.close(); }
 */
export async function projectServer(project: TestProject): Promise<TrellisServer> {
  return createServer(await loadConfig(project.config), { env: {}, workers: 1 });
}

/**
 * {@link makeProject} plus `reject-flow` (refuses input while paused) and `slow-flow` (runs until
 * stopped), from `run-service-graphs.ts`.
 *
 * @example
 * const project = makeServiceProject();
 */
export function makeServiceProject(): TestProject {
  const project = makeProject();
  const config = JSON.parse(readFileSync(project.config, "utf8")) as { graphs: Record<string, unknown> };
  const module = join(REPO_DIR, "packages/cli/src/test/run-service-graphs.ts");
  config.graphs["reject-flow"] = { module, graph: "rejectGraph" };
  config.graphs["slow-flow"] = { module, graph: "slowGraph" };
  config.graphs["fail-flow"] = { module, graph: "failGraph" };
  writeFileSync(project.config, JSON.stringify(config));
  return project;
}
