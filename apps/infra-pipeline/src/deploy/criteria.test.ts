import { describe, expect, it } from "vitest";
import type { CriterionCheck } from "../contracts.js";
import { generateTerraform } from "../iac/terraform-generator.js";
import { buildPlan } from "../planning/plan-builder.js";
import { DEFAULT_POLICY } from "../policy.js";
import { loadModule } from "../terraform/terraform-module.js";
import { evaluateCriterion, plannedChanges } from "./criteria.js";

function moduleFor(request: string, fixes: string[] = []) {
  const plan = buildPlan({ request, environment: "dev", requestId: "req-1", policy: DEFAULT_POLICY });
  return { plan, mod: loadModule(generateTerraform({ plan, policy: DEFAULT_POLICY, fixes: new Set(fixes) })) };
}

const run = (mod: ReturnType<typeof loadModule>, check: CriterionCheck) =>
  evaluateCriterion(mod, { id: "AC-9", description: "check", check });

describe("acceptance criteria against generated files", () => {
  it("every criterion the planner writes holds for the files the IaC agent writes", () => {
    for (const request of [
      "create an S3 bucket for logs with versioning and 90 day retention",
      "create a public S3 bucket for website assets",
      "create a fifo SQS queue for orders with 4 day retention",
      "create a dynamodb table for sessions keyed by session_id",
      "create an SNS topic for alerts with kms",
      "delete the logs bucket",
    ]) {
      const { plan, mod } = moduleFor(request);
      const results = plan.acceptance_criteria.map((c) => evaluateCriterion(mod, c));
      expect(
        results.filter((r) => !r.passed),
        request,
      ).toEqual([]);
      expect(results.length, request).toBeGreaterThan(0);
    }
  });

  it("each check type fails with evidence that says why", () => {
    const { mod } = moduleFor("create an S3 bucket for logs");
    expect(run(mod, { type: "resource_exists", resource_type: "aws_s3_bucket", name: "other" })).toMatchObject({
      passed: false,
      evidence: 'no aws_s3_bucket named "other"; found aws_s3_bucket.logs = "trellis-dev-logs"',
    });
    expect(
      run(mod, {
        type: "attributes",
        resource_type: "aws_s3_bucket_versioning",
        subject: "aws_s3_bucket.logs",
        expect: { "versioning_configuration.status": "Enabled" },
      }),
    ).toMatchObject({ passed: false, evidence: "no aws_s3_bucket_versioning for aws_s3_bucket.logs" });
    expect(
      run(mod, {
        type: "attributes",
        resource_type: "aws_s3_bucket_server_side_encryption_configuration",
        subject: "aws_s3_bucket.logs",
        expect: { "rule.apply_server_side_encryption_by_default.sse_algorithm": "aws:kms" },
      }),
    ).toMatchObject({
      passed: false,
      evidence:
        'aws_s3_bucket_server_side_encryption_configuration.logs: rule.apply_server_side_encryption_by_default.sse_algorithm is "AES256", want "aws:kms"',
    });
    expect(run(mod, { type: "tags_present", keys: ["CostCenter"] })).toMatchObject({
      passed: false,
      evidence: "aws_s3_bucket.logs lacks CostCenter",
    });
    expect(run(mod, { type: "resource_removed", address: "aws_s3_bucket.logs" })).toMatchObject({
      passed: false,
      evidence: "aws_s3_bucket.logs is still declared",
    });
    expect(run(mod, { type: "encrypted_at_rest", subject: "aws_sqs_queue.x" })).toMatchObject({
      passed: false,
      evidence: "aws_sqs_queue.x is not declared",
    });
    const open = moduleFor("create a public S3 bucket for logs").mod;
    expect(run(open, { type: "public_access_blocked", subject: "aws_s3_bucket.logs" })).toMatchObject({
      passed: false,
      evidence:
        "block_public_acls, block_public_policy, ignore_public_acls, restrict_public_buckets not true; public policy aws_s3_bucket_policy.logs",
    });
    expect(run(mod, { type: "attributes", resource_type: "aws_s3_bucket", expect: { bucket: "*" } }).passed).toBe(true);
  });

  it("plannedChanges: resources are created (or updated, as the plan says) and removed blocks delete", () => {
    const created = moduleFor("create an SQS queue for jobs");
    expect(plannedChanges(created.mod, created.plan)).toEqual([{ address: "aws_sqs_queue.jobs", action: "create" }]);
    const updated = moduleFor("enable versioning on the logs bucket");
    expect(plannedChanges(updated.mod, updated.plan).map((c) => c.action)).toEqual([
      "update",
      "update",
      "update",
      "update",
    ]);
    const removed = moduleFor("delete the logs bucket");
    expect(plannedChanges(removed.mod, removed.plan)).toEqual([{ address: "aws_s3_bucket.logs", action: "delete" }]);
  });
});
