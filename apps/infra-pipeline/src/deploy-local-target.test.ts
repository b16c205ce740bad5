/**
 * Issue 22, infra-pipeline finding 2: a real deployment. With `INFRA_AGENT_TF_TARGET=local` the reviewed
 * resources are applied by the real `terraform`/`tofu` binary as built-in `terraform_data` resources
 * (offline, no registry) and the acceptance criteria are checked against the applied state; a failing
 * apply is a `failed` outcome carrying the command's output. Needs `terraform` or `tofu` on PATH: without
 * one these tests are skipped with a loud warning, and fail under CI=true.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireService } from "@trellis/checkpoint/testing";
import { afterEach, describe, expect, it } from "vitest";
import { DeployValidateAgent } from "./agents/deploy-validate-agent.js";
import { ArtifactStore } from "./artifacts.js";
import type { AcceptanceCriterion, DeploymentOutput, ReviewOutput } from "./contracts.js";
import { findExecutor } from "./deploy/executor.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

const found = findExecutor({ ...process.env, INFRA_AGENT_EXECUTOR: "auto", INFRA_AGENT_TF_TARGET: "local" });
const executorHere = await requireService(
  "terraform or tofu",
  async () => {
    if (!found.executor) throw new Error(found.reason);
  },
  { hint: "install terraform (https://developer.hashicorp.com/terraform/install) or tofu and put it on PATH" },
);

let api: ApiServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe.skipIf(!executorHere)("INFRA_AGENT_TF_TARGET=local: a real apply, checked against what was applied", () => {
  it("an approved dev bucket is applied through the Agent Server API; the criteria hold on the applied state", async () => {
    api = await startApiServer({ INFRA_AGENT_EXECUTOR: "auto", INFRA_AGENT_TF_TARGET: "local" });
    const thread = await api.thread();
    const gate = await thread.wait({
      input: requestInput("create an S3 bucket for logs with versioning", { environment: "dev", dry_run: false }),
    });
    expect(gate.json.pending_approval).toBe("deploy");
    const done = await thread.wait({ command: { resume: { decisions: [{ type: "approve" }] } } });
    expect(done.status).toBe(200);
    const d = done.json.deployment_output as DeploymentOutput;
    const kind = found.executor?.kind ?? "terraform";
    expect(d.steps.map((s) => s.command)).toEqual([
      `${kind} init -input=false -no-color`,
      `${kind} plan -input=false -no-color -out=tfplan`,
      `${kind} apply -input=false -no-color -auto-approve tfplan`,
      `${kind} show -json -no-color`,
    ]);
    expect(d.steps.map((s) => s.exit_code)).toEqual([0, 0, 0, 0]);
    expect(d.steps[2]?.output).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed\./);
    expect(d.steps[2]?.output).toContain("terraform_data.aws_s3_bucket__");
    expect(d).toMatchObject({ status: "applied", mode: kind });
    expect(d.summary).toMatch(/^Applied to the local target \(terraform_data, \w+\) \(init, plan, apply: exit 0\): /);
    expect(d.criteria.length).toBeGreaterThan(0);
    for (const c of d.criteria) {
      expect(c.passed).toBe(true);
      expect(c.evidence).toMatch(/^applied state: |is not in the applied state/);
    }
    const messages = done.json.messages as Array<{ content: string }>;
    expect(messages.at(-1)?.content).toMatch(/^Request req-[\w-]+ applied: Applied to the local target/);
  });

  it("INFRA_AGENT_TF_APPLY=false: planned only — init and plan run, nothing is applied, and the outcome says so", async () => {
    api = await startApiServer({
      INFRA_AGENT_EXECUTOR: "auto",
      INFRA_AGENT_TF_TARGET: "local",
      INFRA_AGENT_TF_APPLY: "false",
    });
    const thread = await api.thread();
    await thread.wait({ input: requestInput("create an S3 bucket for logs", { environment: "dev", dry_run: false }) });
    const done = await thread.wait({ command: { resume: { decisions: [{ type: "approve" }] } } });
    const d = done.json.deployment_output as DeploymentOutput;
    const kind = found.executor?.kind ?? "terraform";
    expect(d.status).toBe("planned");
    expect(d.steps.map((s) => [s.command, s.exit_code])).toEqual([
      [`${kind} init -input=false -no-color`, 0],
      [`${kind} plan -input=false -no-color -out=tfplan`, 0],
    ]);
    expect(d.steps[1]?.output).toMatch(/Plan: \d+ to add, 0 to change, 0 to destroy\./);
    expect(d.summary).toMatch(/^Planned only, NOT applied \(INFRA_AGENT_TF_APPLY=false\): init and plan exited 0/);
    const messages = done.json.messages as Array<{ content: string }>;
    expect(messages.at(-1)?.content).toMatch(/^Request req-[\w-]+ was NOT deployed\. Planned only/);
    expect(done.json.error ?? null).toBeNull();
  });

  it("a failing apply (a postcondition that does not hold) is a failed outcome with the captured output", async () => {
    dir = mkdtempSync(join(tmpdir(), "infra-local-fail-"));
    const store = new ArtifactStore(join(dir, "artifacts"));
    const content = [
      'resource "aws_s3_bucket" "logs" {',
      '  bucket = "trellis-dev-logs"',
      "  lifecycle {",
      "    postcondition {",
      "      condition     = length(self.bucket) <= 10",
      '      error_message = "The bucket name is longer than 10 characters."',
      "    }",
      "  }",
      "}",
      "",
    ].join("\n");
    const files = await store.writeTerraform("req-fail", [{ path: "main.tf", content }], 0);
    const review = { files_reviewed: files.map((f) => ({ path: f.path, sha256: f.sha256 })) } as ReviewOutput;
    const criteria: AcceptanceCriterion[] = [
      {
        id: "AC-1",
        description: "The bucket exists",
        check: { type: "resource_exists", resource_type: "aws_s3_bucket", name: "trellis-dev-logs" },
      },
    ];
    const agent = new DeployValidateAgent({ environment: "dev", store, executor: found });
    const d = await agent.deployAndValidate({
      iacOutput: { request_id: "req-fail", directory: store.directoryFor("req-fail") } as never,
      acceptanceCriteria: criteria,
      plan: null,
      review,
    });
    expect(d.status).toBe("failed");
    expect(d.steps.map((s) => s.exit_code)).toEqual([0, 0, 1]);
    expect(d.steps[2]?.output).toContain("The bucket name is longer than 10 characters.");
    expect(d.summary).toMatch(
      /^Not applied to the local target \(terraform_data, \w+\): `\w+ apply -input=false -no-color -auto-approve tfplan` exited 1 after 2 successful step\(s\)\. /,
    );
  });
});

describe("INFRA_AGENT_TF_TARGET and INFRA_AGENT_TF_APPLY", () => {
  it("INFRA_AGENT_TF_APPLY is true or false; anything else refuses every deployment, saying why", () => {
    expect(findExecutor({ PATH: "", INFRA_AGENT_TF_APPLY: "maybe" })).toEqual({
      reason: 'INFRA_AGENT_TF_APPLY is "maybe": use true (apply) or false (plan only)',
    });
  });

  it("names files or local; anything else refuses every deployment, saying why", () => {
    expect(findExecutor({ PATH: "", INFRA_AGENT_TF_TARGET: "cloud" })).toEqual({
      reason: 'INFRA_AGENT_TF_TARGET is "cloud": use files (the reviewed files) or local (terraform_data, offline)',
    });
  });
});
