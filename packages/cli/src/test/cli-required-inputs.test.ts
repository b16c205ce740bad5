/**
 * `trellis run <graph>` with no input: it asks a person at a terminal for the graph's required input
 * keys (no default, or an empty text), refuses with the command to type when stdin is not a terminal,
 * and prints its first line before it loads the project's graphs. Runs the real bin in a child process;
 * the terminal is a real pseudo-terminal (`script`).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, type TestProject } from "./cli-harness.js";
import { spawnCli } from "./spawn-cli.js";

let project: TestProject;

beforeEach(() => {
  project = makeProject();
});
afterEach(() => project.remove());

/** The bin in a pseudo-terminal, answering each `… › ` prompt with the next answer. */
function runInTerminal(argv: string[], answers: string[]): Promise<{ code: number | null; output: string }> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const command = [
    process.execPath,
    "--conditions=@trellis/source",
    "--import",
    tsx,
    join(REPO_DIR, "packages/cli/src/bin.ts"),
    ...argv,
  ]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: project.dir,
    env: { PATH: process.env.PATH ?? "", TERM: "dumb" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let prompts = 0;
  child.stdout.on("data", (d: Buffer) => {
    output += d.toString();
    const asked = output.split("› ").length - 1;
    for (; prompts < asked; prompts++) child.stdin.write(`${answers.shift() ?? ""}\r`);
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

describe("trellis run with no input", () => {
  it("asks a person at a terminal for the required keys of the input schema, each read as its type, and runs with the answers", async () => {
    const r = await runInTerminal(["run", "approval-flow", "--thread", "ask-1"], ["lockout procedure", "", "y"]);
    expect(r.output).toContain("approval-flow takes this input");
    expect(r.output).toContain("? request (text) › ");
    // draft is the graph's own working key, not an input (issue 37)
    expect(r.output).not.toContain("? draft");
    expect(r.output).toContain('DRAFT for "lockout procedure"');
    expect(r.output).toContain("status: approved");
    expect(r.code).toBe(0);
  }, 120_000);

  it("refuses when stdin is not a terminal, naming the keys and the command to type, and runs nothing", async () => {
    const r = await spawnCli(project, ["run", "approval-flow", "--thread", "ask-2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("approval-flow takes request as input");
    expect(r.stderr).toContain("Give it as arguments: trellis run approval-flow request=… (or");
    expect(r.stdout).not.toContain("✓ write");
  }, 120_000);

  it("runs with the defaults when given --input '{}' (an explicit choice)", async () => {
    const r = await spawnCli(project, ["run", "approval-flow", "--thread", "ask-3", "--input", "{}"], {
      answers: ["", "y"],
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('DRAFT for ""');
  }, 120_000);
});

describe("trellis run's first line", () => {
  it("comes before the project's graph modules are loaded, with a line saying they are loading", async () => {
    const config = JSON.parse(JSON.stringify({ graphs: {}, saver: { kind: "sqlite", path: "trellis.sqlite" } }));
    config.graphs.loud = { module: join(REPO_DIR, "packages/cli/src/test/fixture-loud-module.ts"), graph: "loudGraph" };
    writeFileSync(project.config, JSON.stringify(config));
    const r = await spawnCli(project, ["run", "loud", "--thread", "first-1", "--input", "{}"]);
    expect(r.code).toBe(0);
    const header = r.stdout.indexOf("trellis run loud · thread first-1");
    const loading = r.stdout.indexOf("loading the graph…");
    const evaluated = r.stdout.indexOf("fixture module evaluated");
    expect(header).toBe(0);
    expect(loading).toBeGreaterThan(header);
    expect(evaluated).toBeGreaterThan(loading);
  }, 120_000);
});
