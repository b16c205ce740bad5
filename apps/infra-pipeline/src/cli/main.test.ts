/**
 * The CLI end to end in-process: piped stdin answering the `Approve?` questions, flags for
 * non-interactive runs, JSON output, resuming a paused request from the SQLite file, and the Mermaid
 * drawing compared with the seed's "Visualization".
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mermaidEdges } from "../mermaid.js";
import { EDGES_BEYOND_SEED_DRAWING, SEED_DRAWING } from "../test-support/seed-drawing.js";
import { runCli } from "./main.js";

let dir: string;
let ids: number;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "infra-cli-"));
  ids = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[], stdin = "") {
  let out = "";
  let err = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(
    argv,
    {
      stdin: Readable.from(stdin === "" ? [] : [stdin]),
      stdout: sink((s) => {
        out += s;
      }),
      stderr: sink((s) => {
        err += s;
      }),
      env: { INFRA_AGENT_DATA_DIR: join(dir, "data"), INFRA_AGENT_EXECUTOR: "none" },
      cwd: dir,
    },
    { newRequestId: () => `req-cli-${++ids}` },
  );
  return { code, out, err };
}

/** The `node:` headers in the order they were printed. */
const headers = (out: string) =>
  out
    .split("\n")
    .filter((l) => /^[a-z_]+:$/.test(l))
    .map((l) => l.slice(0, -1));

describe("infra-agent pipeline (interactive, piped stdin)", () => {
  it("prompts, streams node by node, asks Approve? at both gates, then answers a query", async () => {
    const stdin = [
      "create an S3 bucket for logs in prd with versioning",
      "y",
      "perhaps", // not an answer: asked again
      "yes",
      "list the buckets in prd",
      "exit",
    ].join("\n");
    const { code, out, err } = await cli(["pipeline", "--env", "prd"], `${stdin}\n`);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out).toContain("infra-agent pipeline — environment prd\n");
    expect(out).toContain(`checkpoints: ${join(dir, "data", "checkpoints.sqlite")}\n`);
    expect(out).toContain(
      "You: create an S3 bucket for logs in prd with versioning\norchestrator:\n  · intent: change\n",
    );
    expect(out).toContain(
      "plan_approval:\n  Approve the plan? (changes in prd always need approval)\nApprove? [y/n]: y\n",
    );
    expect(out).toContain("Approve? [y/n]: perhaps\nApprove? [y/n]: yes\ndeploy_approval:\n  Deployment approved.\n");
    expect(headers(out)).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "plan_approval",
      "iac",
      "review",
      "iac",
      "review",
      "deploy_approval",
      "deploy_approval",
      "deploy_validate",
      "end_success",
      "orchestrator",
    ]);
    expect(out).toContain(
      "    [error] ENCRYPTION_CMK_REQUIRED main.tf:20 aws_s3_bucket.logs must use a customer-managed KMS key",
    );
    expect(out).toContain("5/5 acceptance criteria met by the reviewed files.");
    expect(out).toContain("Result: refused (req-cli-1)\n");
    expect(out).toContain("You: list the buckets in prd\n");
    expect(out).toContain(
      "  1 S3 bucket in prd:\n    - trellis-prd-logs (prd) — req-cli-1, not deployed (refused: no executor)\n",
    );
    expect(out).toContain("Result: answered (req-cli-2)\nYou: exit\n");
  });

  it("a rejected plan ends the request; the session goes on", async () => {
    const { code, out } = await cli(["pipeline", "--env", "prd"], "create an SQS queue for orders\nn\nhello\n");
    expect(code).toBe(0);
    expect(out).toContain(
      "Approve? [y/n]: n\nplan_approval:\n  Plan rejected.\nrejected:\n  Request req-cli-1: the plan was rejected.",
    );
    expect(out).toContain("Result: rejected (req-cli-1)\nYou: hello\norchestrator:\n");
  });

  it("dry run: no deploy question", async () => {
    const { code, out } = await cli(["pipeline", "--env", "dev", "--dry-run"], "create an S3 bucket for logs\n");
    expect(code).toBe(0);
    expect(out).toContain("infra-agent pipeline — environment dev (dry run)\n");
    expect(out).not.toContain("Approve?");
    expect(out).toContain(
      "deploy_approval:\n  dry run: deployment skipped\nend_success:\n  Dry run complete for req-cli-1",
    );
    expect(out).toContain("Result: dry_run_complete (req-cli-1)\n");
  });

  it("end of input at a gate leaves the request waiting; --thread answers it from the SQLite file later", async () => {
    const first = await cli(["pipeline", "--env", "prd"], "create an SNS topic for alerts\n");
    expect(first.code).toBe(3);
    expect(first.out).toContain("Approve? [y/n]: \nResult: awaiting_approval (req-cli-1)\n");
    expect(first.out).toContain("infra-agent pipeline --thread req-cli-1 --approve-plan (or --reject-plan)");

    const second = await cli(["pipeline", "--thread", "req-cli-1", "--approve-plan"]);
    expect(second.code).toBe(3); // now at the deploy gate
    expect(second.out).toContain("Approve? yes (--approve-plan)\nplan_approval:\n  Plan approved.\n");
    expect(second.out).toContain("req-cli-1 waits at the deploy gate.");

    const third = await cli(["pipeline", "--thread", "req-cli-1", "--json", "--reject-deploy"]);
    expect(third.code).toBe(4);
    const result = JSON.parse(third.out);
    expect(result).toMatchObject({
      thread_id: "req-cli-1",
      outcome: "rejected",
      environment: "prd",
      nodes: ["deploy_approval", "rejected"],
      pending_approval: null,
      reply: "Request req-cli-1: the deployment was rejected. Nothing was deployed.",
    });
  });
});

describe("infra-agent pipeline (non-interactive)", () => {
  it("--request with both approvals and --json prints one JSON result", async () => {
    const { code, out } = await cli([
      "pipeline",
      "--env",
      "prd",
      "--request",
      "create an S3 bucket for logs in prd with versioning",
      "--approve-plan",
      "--approve-deploy",
      "--json",
    ]);
    expect(code).toBe(5);
    const result = JSON.parse(out);
    expect(result).toMatchObject({
      request_id: "req-cli-1",
      outcome: "refused",
      intent: "change",
      retry_count: 1,
      review_status: "passed",
      deployment_output: { status: "refused", mode: "none", steps: [] },
    });
    expect(result.nodes).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "iac",
      "review",
      "iac",
      "review",
      "deploy_approval",
      "deploy_validate",
      "end_success",
    ]);
  });

  it("without an approval flag it stops at the gate (exit 3) and says how to continue", async () => {
    const { code, out } = await cli(["pipeline", "--env", "prd", "--request", "create an S3 bucket for logs"]);
    expect(code).toBe(3);
    expect(out).toContain("plan_approval:\n  Approve the plan? (changes in prd always need approval)\n");
    expect(out).toContain("Result: awaiting_approval (req-cli-1)\nreq-cli-1 waits at the plan gate.");
  });

  it("retries exhausted: exit 1 with the findings count", async () => {
    const { code, out } = await cli([
      "pipeline",
      "--env",
      "prd",
      "--request",
      "create a public S3 bucket for website assets",
      "--approve-plan",
    ]);
    expect(code).toBe(1);
    expect(out).toContain(
      "end_failure:\n  Pipeline failed after 3 retries.\n  Error: Review still needs revision after 3 of 3 attempts",
    );
    expect(out).toContain("\n  Review findings: 2 issues\n");
    expect(out).toContain("Result: failed (req-cli-1)\n");
  });

  it("usage errors exit 2 with the usage text", async () => {
    for (const argv of [
      ["pipeline", "--env", "qa"],
      ["pipeline", "--json"],
      ["pipeline", "--approve-plan", "--reject-plan"],
      ["pipeline", "--bogus"],
      ["deploy"],
    ]) {
      const { code, err } = await cli(argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(err).toMatch(/^infra-agent: .+\n\nUsage:/);
    }
    expect((await cli(["pipeline", "--thread", "req-unknown"])).err).toContain('no request "req-unknown"');
  });
});

describe("infra-agent graph", () => {
  it("prints the seed's drawing: the same edges in the same order, plus the edges the seed's code adds", async () => {
    const { code, out } = await cli(["graph"]);
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toBe("graph TD");
    const printed = mermaidEdges(out);
    const seed = mermaidEdges(SEED_DRAWING);
    expect(seed).toHaveLength(16);
    expect(printed.filter((e) => seed.includes(e))).toEqual(seed);
    // START → entry point, and the add_edge(…, END) calls of get_pipeline(), which the seed's drawing omits.
    expect(printed.filter((e) => !seed.includes(e))).toEqual(EDGES_BEYOND_SEED_DRAWING);
  });

  it("help", async () => {
    const { code, out } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(out).toMatch(/^Usage:\n {2}infra-agent pipeline/);
  });
});
