import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../io.js";
import { main } from "../main.js";

/** The repository root. */
export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** A temporary project: a trellis.json serving the example graphs on a SQLite file of its own. */
export interface TestProject {
  dir: string;
  config: string;
  remove(): void;
}

/**
 * Writes a trellis.json in a fresh temporary folder with `approval-flow` (interrupts with values) and
 * `bp-flow` (a static breakpoint) on `trellis.sqlite` there.
 */
export function makeProject(): TestProject {
  const dir = mkdtempSync(join(tmpdir(), "trellis-cli-"));
  const config = join(dir, "trellis.json");
  writeFileSync(
    config,
    JSON.stringify({
      graphs: {
        "approval-flow": { module: join(REPO_DIR, "examples/src/approval-flow.ts"), graph: "buildGraph" },
        "bp-flow": { module: join(REPO_DIR, "packages/cli/src/test/fixture-graphs.ts"), graph: "breakpointGraph" },
      },
      saver: { kind: "sqlite", path: "trellis.sqlite" },
    }),
  );
  return { dir, config, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a command printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `trellis <argv>` in-process in the project's folder, with `input` as stdin (ended after it).
 *
 * @example
 * const r = await runCli(project, ["draw", "approval-flow"]);
 */
export async function runCli(
  project: TestProject,
  argv: string[],
  input = "",
  options: { signal?: AbortSignal; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const io: CliIo = {
    stdin: Readable.from([input]),
    stdout,
    stderr,
    env: { PATH: process.env.PATH ?? "", ...options.env },
    cwd: project.dir,
  };
  const code = await main(argv, io, options.signal);
  return { code, stdout: out, stderr: err };
}

/** Runs a long-lived command (serve, worker, dev) until `ready` matches its output, then hands over. */
export function startCli(project: TestProject, argv: string[], ready: RegExp, env: Record<string, string> = {}) {
  const controller = new AbortController();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  stderr.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const io: CliIo = {
    stdin: Readable.from([""]),
    stdout,
    stderr,
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd: project.dir,
  };
  const done = main(argv, io, controller.signal);
  const started = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const m = ready.exec(out);
      if (m) {
        clearInterval(timer);
        resolve(m[1] ?? m[0]);
      }
    }, 20);
    void done.then((code) => {
      clearInterval(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    started,
    output: () => out,
    async stop(): Promise<number> {
      controller.abort();
      return done;
    },
  };
}
