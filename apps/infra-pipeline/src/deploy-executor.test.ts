/**
 * Issue 22, infra-pipeline finding 2, through the Agent Server API: an approved, non-dry deployment is
 * deployed by an executor or refused — never reported as a simulated success. With no `terraform` or
 * `tofu` on PATH it is refused with a clear message and nothing is run; with `terraform` it runs
 * init, plan and apply on the reviewed files and reports each command's exit code and output.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DeploymentOutput } from "./contracts.js";
import { findExecutor } from "./deploy/executor.js";
import { type ApiServer, requestInput, startApiServer } from "./test-support/api-server.js";

let api: ApiServer | undefined;
let emptyDir: string | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  if (emptyDir) rmSync(emptyDir, { recursive: true, force: true });
  emptyDir = undefined;
});

/** A dev bucket (no plan gate; the first review passes), approved at the deploy gate. */
async function approvedDeployment(server: ApiServer): Promise<Record<string, unknown>> {
  const thread = await server.thread();
  const gate = await thread.wait({
    input: requestInput("create an S3 bucket for logs", { environment: "dev", dry_run: false }),
  });
  expect(gate.json.pending_approval).toBe("deploy");
  const done = await thread.wait({ command: { resume: true } });
  expect(done.status).toBe(200);
  return done.json;
}

describe("an approved deployment is deployed or refused, never simulated", () => {
  it("no terraform or tofu on PATH: refused with a clear message; nothing was run", async () => {
    emptyDir = mkdtempSync(join(tmpdir(), "infra-no-executor-"));
    api = await startApiServer({ PATH: emptyDir, INFRA_AGENT_EXECUTOR: "" });
    const values = await approvedDeployment(api);
    const d = values.deployment_output as DeploymentOutput;
    expect(d).toMatchObject({ status: "refused", mode: "none", steps: [] });
    expect(d.summary).toMatch(
      /^Not deployed \(refused\): neither terraform nor tofu is on PATH\. Nothing was changed in dev\. Install terraform or tofu/,
    );
    expect(d.summary).not.toMatch(/succeeded|no cloud calls/);
    const messages = values.messages as Array<{ content: string }>;
    expect(messages.at(-1)?.content).toMatch(/^Request req-[\w-]+ was NOT deployed\./);
    expect(values.error).toMatch(/^Deployment refused: /);
  });

  it("INFRA_AGENT_EXECUTOR=terraform: init, plan and apply run on the reviewed files, with exit codes and output", async () => {
    api = await startApiServer({ INFRA_AGENT_EXECUTOR: "terraform" });
    const found = findExecutor(process.env);
    const values = await approvedDeployment(api);
    const d = values.deployment_output as DeploymentOutput;
    if (!found.executor) {
      // this machine has no terraform: the deployment is refused, naming why
      expect(d).toMatchObject({ status: "refused", mode: "none", steps: [] });
      expect(d.summary).toContain("INFRA_AGENT_EXECUTOR names terraform, which is not an executable on PATH");
      return;
    }
    expect(d.mode).toBe("terraform");
    expect(d.steps[0]?.command).toBe("terraform init -input=false -no-color");
    for (const step of d.steps) expect(typeof step.exit_code).toBe("number");
    const allPassed = d.steps.length === 3 && d.steps.every((s) => s.exit_code === 0);
    expect(d.status).toBe(allPassed ? "applied" : "failed");
    if (!allPassed) {
      // e.g. no network for the provider, or no cloud credentials: the run says which command failed
      const last = d.steps.at(-1);
      expect(d.summary.startsWith(`Not applied: \`${last?.command}\` exited ${last?.exit_code}`)).toBe(true);
      expect(last?.output).not.toBe("");
    }
  });
});
