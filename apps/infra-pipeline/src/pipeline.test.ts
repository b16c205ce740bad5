/**
 * Every route of the pipeline, offline, on a MemorySaver: orchestrator routes, the plan gate (pending,
 * approved, rejected, deferred), the review loop (first time, after a revision, retries exhausted,
 * failed), dry runs and the deploy gate.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "@trellis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PipelineEvent } from "./pipeline.js";
import { collect, nodesOf, type PipelineFixture, pipelineFixture } from "./test-support/pipeline-fixture.js";

let f: PipelineFixture;
beforeEach(async () => {
  f = await pipelineFixture();
});
afterEach(async () => {
  await f.cleanup();
});

const approvals = (events: PipelineEvent[]) => events.flatMap((e) => (e.type === "approval" ? [e.request.gate] : []));
const lastMessage = async (threadId: string) => (await f.pipeline.status(threadId)).values.messages.at(-1);

describe("orchestrator routes", () => {
  it("change → planning → … (a low-impact dev change needs no plan approval)", async () => {
    const events = await collect(f.pipeline.stream("create an SQS queue for orders", { environment: "dev" }));
    expect(nodesOf(events)).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review"]);
    expect(approvals(events)).toEqual(["deploy"]);
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.intent).toBe("change");
    expect(values.planning_output?.requires_approval).toBe(false);
    expect(values.plan_approved).toBeNull();
  });

  it("query → END, answered from the records of earlier requests", async () => {
    await collect(f.pipeline.stream("create an S3 bucket for logs in prd with versioning", { environment: "prd" }));
    await collect(f.pipeline.streamWithApproval("req-test-1", true));
    await collect(f.pipeline.streamWithApproval("req-test-1", true));

    const events = await collect(f.pipeline.stream("list the buckets in prd", { environment: "dev" }));
    expect(nodesOf(events)).toEqual(["orchestrator"]);
    const status = await f.pipeline.status("req-test-2");
    expect(status.values.intent).toBe("query");
    expect(status.outcome).toBe("answered");
    expect(status.values.messages.at(-1)?.content).toBe(
      "1 S3 bucket in prd:\n  - trellis-prd-logs (prd) — req-test-1, not deployed (refused: no executor)",
    );
  });

  it("conversation → END with a reply from the offline model", async () => {
    const events = await collect(f.pipeline.stream("good morning!", { environment: "dev" }));
    expect(nodesOf(events)).toEqual(["orchestrator"]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.values.intent).toBe("conversation");
    expect(status.outcome).toBe("answered");
    expect(status.values.messages.at(-1)).toMatchObject({ role: "assistant", name: "orchestrator" });
    expect(status.values.messages.at(-1)?.content).toMatch(/^Hello! I plan, write, review and validate/);
  });
});

describe("plan approval", () => {
  const request = "create an S3 bucket for logs in prd with versioning";

  it("pending: prd plans wait at the gate; nothing is written yet", async () => {
    const events = await collect(f.pipeline.stream(request, { environment: "prd" }));
    expect(nodesOf(events)).toEqual(["orchestrator", "planning"]);
    const approval = events.find((e) => e.type === "approval");
    expect(approval?.type === "approval" && approval.request).toMatchObject({
      gate: "plan",
      question: "Approve the plan?",
      request_id: "req-test-1",
      reasons: ["changes in prd always need approval"],
    });
    const status = await f.pipeline.status("req-test-1");
    expect(status).toMatchObject({ outcome: "awaiting_approval", gate: "plan", next: ["plan_approval"] });
    expect(status.values.pending_approval).toBe("plan");
    expect(status.values.planning_output?.requirements.map((r) => r.id)).toEqual([
      "REQ-1",
      "REQ-2",
      "REQ-3",
      "REQ-4",
      "REQ-5",
      "REQ-6",
    ]);
    expect(status.values.iac_output).toBeNull();
    expect(await f.store.readTerraform("req-test-1")).toEqual([]);
  });

  it("approved: the gate records the answer and IaC starts", async () => {
    await collect(f.pipeline.stream(request, { environment: "prd" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", true));
    expect(nodesOf(events).slice(0, 3)).toEqual(["plan_approval", "iac", "review"]);
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.plan_approved).toBe(true);
    expect(values.iac_output?.files.map((x) => x.path)).toContain("main.tf");
  });

  it("rejected: → rejected → END, nothing implemented", async () => {
    await collect(f.pipeline.stream(request, { environment: "prd" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", false));
    expect(nodesOf(events)).toEqual(["plan_approval", "rejected"]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("rejected");
    expect(status.values).toMatchObject({ plan_approved: false, pending_approval: null, iac_output: null });
    expect(status.values.messages.at(-1)?.content).toBe(
      "Request req-test-1: the plan was rejected. Nothing was deployed.",
    );
    expect(await f.store.readTerraform("req-test-1")).toEqual([]);
  });

  it("high-impact changes need approval in dev too", async () => {
    const events = await collect(
      f.pipeline.stream("create a public S3 bucket for website assets", { environment: "dev" }),
    );
    expect(approvals(events)).toEqual(["plan"]);
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.planning_output).toMatchObject({ impact: "high", approval_reasons: ["high-impact change"] });
  });

  it("a non-answer re-asks at the same gate with the reason; approving then continues from the gate", async () => {
    const config = { threadId: "req-test-1" };
    await collect(f.pipeline.stream(request, { environment: "prd" }));
    await f.graph.invoke(new Command({ resume: "later" }), config);
    let status = await f.pipeline.status("req-test-1");
    expect(status).toMatchObject({ outcome: "awaiting_approval", gate: "plan", next: ["plan_approval"] });
    expect(status.approval?.not_a_decision).toMatch(/^"later" is not a decision/);
    expect(status.values.pending_approval).toBe("plan");

    const events = await collect(f.pipeline.streamWithApproval("req-test-1", true));
    expect(nodesOf(events)).toEqual(["plan_approval", "iac", "review", "iac", "review"]);
    status = await f.pipeline.status("req-test-1");
    expect(status.gate).toBe("deploy");
  });
});

describe("review loop", () => {
  it("passes first time: dev rules accept the first draft", async () => {
    const events = await collect(
      f.pipeline.stream("create an S3 bucket for logs with versioning and 30 day retention", { environment: "dev" }),
    );
    expect(nodesOf(events)).toEqual(["orchestrator", "planning", "plan_approval", "iac", "review"]);
    const { values } = await f.pipeline.status("req-test-1");
    expect(values).toMatchObject({ review_status: "passed", retry_count: 0, pending_approval: "deploy" });
    expect(values.iac_output?.revision).toBe(1);
    expect(values.review_output?.findings).toEqual([]);
  });

  it("needs revision, then passes: IaC fixes what the prd review found", async () => {
    await collect(f.pipeline.stream("create an S3 bucket for logs in prd with versioning", { environment: "prd" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", true));
    expect(nodesOf(events)).toEqual(["plan_approval", "iac", "review", "iac", "review"]);
    const reviews = events.flatMap((e) => (e.type === "update" && e.node === "review" ? [e.update.review_output] : []));
    expect(reviews.map((r) => r?.status)).toEqual(["needs_revision", "passed"]);
    expect(reviews[0]?.findings.map((x) => `${x.rule}@${x.resource}`)).toEqual([
      "ENCRYPTION_CMK_REQUIRED@aws_s3_bucket.logs",
    ]);

    const { values } = await f.pipeline.status("req-test-1");
    expect(values.retry_count).toBe(1);
    expect(values.iac_output).toMatchObject({
      revision: 2,
      applied_fixes: ["ENCRYPTION_CMK_REQUIRED@aws_s3_bucket.logs"],
      changes: ["ENCRYPTION_CMK_REQUIRED on aws_s3_bucket.logs: encrypt with a customer-managed KMS key that rotates"],
    });
    const dir = f.store.directoryFor("req-test-1");
    const first = await readFile(join(dir, ".revisions", "1", "main.tf"), "utf8");
    const second = await readFile(join(dir, "main.tf"), "utf8");
    expect(first).toContain('sse_algorithm = "AES256"');
    expect(second).toContain('resource "aws_kms_key" "logs"');
    expect(second).toContain("kms_master_key_id = aws_kms_key.logs.arn");
  });

  it("retries exhausted → end_failure, with the number of findings in the message", async () => {
    await collect(f.pipeline.stream("create a public S3 bucket for website assets", { environment: "prd" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", true));
    expect(nodesOf(events)).toEqual([
      "plan_approval",
      "iac",
      "review",
      "iac",
      "review",
      "iac",
      "review",
      "end_failure",
    ]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("failed");
    const { values } = status;
    expect(values.retry_count).toBe(3);
    expect(values.max_retries).toBe(3);
    const findings = values.review_output?.findings ?? [];
    expect(findings.map((x) => x.rule)).toEqual(["S3_PUBLIC_ACCESS_ENABLED", "S3_PUBLIC_POLICY"]);
    const message = String(values.messages.at(-1)?.content);
    expect(message).toMatch(
      /^Pipeline failed after 3 retries\.\nError: Review still needs revision after 3 of 3 attempts: /,
    );
    expect(message).toContain(`\nReview findings: ${findings.length} issues\n`);
    expect(values.error).toMatch(/^Review still needs revision/);
    expect(values.iac_output?.unresolved.map((u) => u.rule)).toEqual(["S3_PUBLIC_ACCESS_ENABLED", "S3_PUBLIC_POLICY"]);
  });

  it("a change the pipeline cannot implement is answered at the orchestrator, running no stage (issue 35)", async () => {
    const events = await collect(f.pipeline.stream("create a vpn tunnel to the office", { environment: "dev" }));
    expect(nodesOf(events)).toEqual(["orchestrator"]);
    const { values } = await f.pipeline.status("req-test-1");
    expect(values.planning_output).toBeNull();
    expect(values.messages.at(-1)?.content).toMatch(
      /^I can't do that here: networking \(VPCs, VPNs, subnets, load balancers, DNS\) are outside what this pipeline manages\./,
    );
  });
});

describe("deploy approval", () => {
  it("dry run skips deployment: deploy_approval → end_success, no deploy gate", async () => {
    const events = await collect(
      f.pipeline.stream("create an S3 bucket for logs", { environment: "dev", dryRun: true }),
    );
    expect(nodesOf(events)).toEqual([
      "orchestrator",
      "planning",
      "plan_approval",
      "iac",
      "review",
      "deploy_approval",
      "end_success",
    ]);
    expect(approvals(events)).toEqual([]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("dry_run_complete");
    expect(status.values.deployment_output).toBeNull();
    expect(status.values.pending_approval).toBeNull();
    expect(status.values.messages.at(-1)?.content).toMatch(/^Dry run complete for req-test-1: .*deployment skipped/);
  });

  it("approved → deploy_validate checks every acceptance criterion; with no executor the deployment is refused, never simulated", async () => {
    await collect(f.pipeline.stream("create a fifo sqs queue for orders with 4 day retention", { environment: "dev" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", true));
    expect(nodesOf(events)).toEqual(["deploy_approval", "deploy_validate", "end_success"]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("refused");
    const deployment = status.values.deployment_output;
    expect(deployment).toMatchObject({ status: "refused", mode: "none", environment: "dev", steps: [] });
    expect(deployment?.planned_changes).toEqual([{ address: "aws_sqs_queue.orders", action: "create" }]);
    expect(deployment?.criteria.map((c) => [c.id, c.passed])).toEqual([
      ["AC-1", true],
      ["AC-2", true],
      ["AC-3", true],
      ["AC-4", true],
      ["AC-5", true],
    ]);
    expect(await f.store.readRecord("req-test-1", "deployment")).toEqual(deployment);
    expect((await lastMessage("req-test-1"))?.content).toMatch(
      /^Request req-test-1 was NOT deployed\. Not deployed \(refused\): no deployment executor is configured\. Nothing was changed in dev\..* would make 1 to add, 0 to change, 0 to destroy; 5\/5 acceptance criteria met/,
    );
  });

  it("rejected → rejected → END", async () => {
    await collect(f.pipeline.stream("create an SNS topic for alerts", { environment: "tst" }));
    const events = await collect(f.pipeline.streamWithApproval("req-test-1", false));
    expect(nodesOf(events)).toEqual(["deploy_approval", "rejected"]);
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("rejected");
    expect(status.values.deployment_output).toBeNull();
    expect(status.values.messages.at(-1)?.content).toBe(
      "Request req-test-1: the deployment was rejected. Nothing was deployed.",
    );
  });

  it("files edited after the review fail validation", async () => {
    await collect(f.pipeline.stream("create an S3 bucket for logs", { environment: "dev" }));
    const main = join(f.store.directoryFor("req-test-1"), "main.tf");
    await writeFile(main, (await readFile(main, "utf8")).replace('"trellis-dev-logs"', '"someone-elses-bucket"'));
    await collect(f.pipeline.streamWithApproval("req-test-1", true));
    const status = await f.pipeline.status("req-test-1");
    expect(status.outcome).toBe("failed");
    const failed = status.values.deployment_output?.criteria.filter((c) => !c.passed).map((c) => c.id);
    expect(failed).toEqual(["AC-1", "REVIEWED"]);
    expect(status.values.error).toMatch(
      /^Deployment failed: Not deployed: 2 of \d+ acceptance criteria NOT met \(AC-1, REVIEWED\)/,
    );
  });
});

describe("threads", () => {
  it("a second change on the same thread is a new request with fresh state", async () => {
    const config = { threadId: "shared" };
    const first = await f.graph.invoke(
      { request_id: "req-a", messages: [{ role: "user", content: "create an S3 bucket for logs" }] },
      config,
    );
    expect(first.__interrupt__?.[0]?.value).toMatchObject({ gate: "deploy", request_id: "req-a" });
    await f.graph.invoke(new Command({ resume: false }), config);

    const second = await f.graph.invoke(
      { messages: [{ role: "user", content: "create an SQS queue for jobs" }] },
      config,
    );
    expect(second.request_id).toBe("req-test-1");
    expect(second).toMatchObject({ deploy_approved: null, retry_count: 0, review_status: "passed" });
    expect(second.planning_output?.resources.map((r) => r.name)).toEqual(["trellis-dev-jobs"]);
  });

  it("rejects an unknown environment", async () => {
    await expect(
      f.graph.invoke({ environment: "qa" as never, messages: [{ role: "user", content: "hi" }] }, { threadId: "t" }),
    ).rejects.toThrow(
      'The run\'s input sets state key "environment" to "qa", which its schema refuses: must be dev, tst or prd (or development, test, prod, production).',
    );
  });
});
