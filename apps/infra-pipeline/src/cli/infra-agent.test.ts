/**
 * The `infra-agent` executable as a user runs it: a child process whose stdin is a pipe. Answers are
 * written only once the CLI has asked for them, as a person at a terminal would.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mermaidEdges } from "../mermaid.js";
import { EDGES_BEYOND_SEED_DRAWING, SEED_DRAWING } from "../test-support/seed-drawing.js";

const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const BIN = fileURLToPath(new URL("../bin/infra-agent.ts", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "infra-bin-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the CLI; each time its output ends with `prompt`, writes the next answer (and closes stdin when
 * none are left).
 */
function dialogue(args: string[], answers: string[], prompt = /(You|Approve\? \[y\/n\]): $/) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(INFRA_AGENT|TRELLIS)_/.test(k)),
  ) as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, ["--conditions=@trellis/source", "--import", TSX, BIN, ...args], {
    cwd: dir,
    env: { ...env, INFRA_AGENT_DATA_DIR: join(dir, "data"), INFRA_AGENT_EXECUTOR: "none" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const queue = [...answers];
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!prompt.test(stdout)) return;
    const next = queue.shift();
    if (next === undefined) child.stdin.end();
    else child.stdin.write(`${next}\n`);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("infra-agent (child process, piped stdin)", () => {
  it("pipeline --env prd: a request, both approvals, a query, exit", async () => {
    const { code, stdout, stderr } = await dialogue(
      ["pipeline", "--env", "prd"],
      ["create an S3 bucket for logs in prd with versioning", "y", "y", "list the buckets", "exit"],
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const id = /Plan (req-\d{8}-\d{6}-[0-9a-f]{6}) \(prd\)/.exec(stdout)?.[1];
    expect(id).toBeDefined();
    expect(stdout).toContain(
      "plan_approval:\n  Approve the plan? (changes in prd always need approval)\nApprove? [y/n]: y\n",
    );
    expect(stdout).toContain("deploy_approval:\n  Approve the deployment?");
    expect(stdout).toContain(`Result: refused (${id})\n`);
    expect(stdout).toContain(
      `  1 S3 bucket in prd:\n    - trellis-prd-logs (prd) — ${id}, not deployed (refused: no executor)\n`,
    );
    expect(stdout).toMatch(/You: exit\n$/);
  });

  it("pipeline --request … --json, then --thread to answer the waiting gate", async () => {
    const first = await dialogue(
      ["pipeline", "--env", "tst", "--request", "create an SQS queue for jobs", "--json"],
      [],
    );
    expect(first.code).toBe(3);
    const paused = JSON.parse(first.stdout);
    expect(paused).toMatchObject({ outcome: "awaiting_approval", pending_approval: "deploy", environment: "tst" });

    const second = await dialogue(["pipeline", "--thread", paused.thread_id, "--approve-deploy"], []);
    expect(second.code).toBe(5);
    expect(second.stdout).toContain(`Result: refused (${paused.thread_id})\n`);
  });

  it("graph prints the seed's Visualization edges", async () => {
    const { code, stdout } = await dialogue(["graph"], []);
    expect(code).toBe(0);
    const seed = mermaidEdges(SEED_DRAWING);
    const printed = mermaidEdges(stdout);
    expect(printed.filter((e) => seed.includes(e))).toEqual(seed);
    expect(printed.filter((e) => !seed.includes(e))).toEqual(EDGES_BEYOND_SEED_DRAWING);
  });
});
