/**
 * The review's static checks on hand-written Terraform: each category finds what it should, with the
 * severity the environment gives it, and stays quiet on compliant files.
 */
import { describe, expect, it } from "vitest";
import type { Environment, Finding } from "../contracts.js";
import { buildPlan } from "../planning/plan-builder.js";
import { DEFAULT_POLICY } from "../policy.js";
import { loadModule } from "../terraform/terraform-module.js";
import { runReviewRules } from "./review-rules.js";

const PROVIDER = 'provider "aws" {\n  region = "eu-west-1"\n}\n';
const TAGS = (env: Environment) =>
  `{ Environment = "${env}", Project = "trellis", Owner = "platform-team", ManagedBy = "terraform", RequestId = "req-1" }`;

/** A compliant prd bucket; tests replace parts of it. */
function bucket(env: Environment, overrides: { name?: string; extra?: string; skip?: string[] } = {}): string {
  const name = overrides.name ?? `trellis-${env}-logs`;
  const parts: Record<string, string> = {
    bucket: `resource "aws_s3_bucket" "logs" {\n  bucket = "${name}"\n  tags   = ${TAGS(env)}\n}\n`,
    key: `resource "aws_kms_key" "logs" {\n  enable_key_rotation = true\n  tags = ${TAGS(env)}\n}\n`,
    versioning: `resource "aws_s3_bucket_versioning" "logs" {\n  bucket = aws_s3_bucket.logs.id\n  versioning_configuration {\n    status = "Enabled"\n  }\n}\n`,
    sse: `resource "aws_s3_bucket_server_side_encryption_configuration" "logs" {\n  bucket = aws_s3_bucket.logs.id\n  rule {\n    apply_server_side_encryption_by_default {\n      sse_algorithm     = "aws:kms"\n      kms_master_key_id = aws_kms_key.logs.arn\n    }\n  }\n}\n`,
    pab: `resource "aws_s3_bucket_public_access_block" "logs" {\n  bucket                  = aws_s3_bucket.logs.id\n  block_public_acls       = true\n  block_public_policy     = true\n  ignore_public_acls      = true\n  restrict_public_buckets = true\n}\n`,
  };
  for (const skip of overrides.skip ?? []) delete parts[skip];
  return PROVIDER + Object.values(parts).join("\n") + (overrides.extra ?? "");
}

function review(content: string, environment: Environment = "prd", plan: ReturnType<typeof buildPlan> | null = null) {
  const module = loadModule([{ path: "main.tf", content }]);
  return runReviewRules({ module, environment, policy: DEFAULT_POLICY, plan, fileCount: 1 });
}

const brief = (findings: Finding[]) =>
  findings.map((f) => `${f.severity} ${f.rule}${f.resource ? ` ${f.resource}` : ""}`);

describe("a compliant configuration", () => {
  it.each(["dev", "tst", "prd"] as const)("has no findings in %s", (env) => {
    expect(review(bucket(env), env)).toEqual([]);
  });
});

describe("syntax and structure", () => {
  it("reports syntax errors with file and line", () => {
    const findings = review(`${PROVIDER}resource "aws_s3_bucket" "logs" {\n  bucket = "oops\n}\n`);
    expect(findings[0]).toMatchObject({ rule: "HCL_SYNTAX", severity: "error", file: "main.tf", line: 5 });
  });

  it("no files or no resources is critical; a resource the plan needs must be declared", () => {
    const empty = runReviewRules({ module: loadModule([]), environment: "dev", policy: DEFAULT_POLICY, fileCount: 0 });
    expect(brief(empty)).toEqual(["critical NO_TERRAFORM_FILES"]);
    expect(brief(review(PROVIDER, "dev"))).toEqual(["critical NO_RESOURCES"]);
    const plan = buildPlan({
      request: "create an sqs queue for jobs",
      environment: "dev",
      requestId: "req-1",
      policy: DEFAULT_POLICY,
    });
    expect(brief(review(bucket("dev"), "dev", plan))).toEqual(["error PLANNED_RESOURCE_MISSING aws_sqs_queue.jobs"]);
    expect(brief(review(bucket("dev").replace(PROVIDER, ""), "dev"))).toEqual(["warning PROVIDER_MISSING"]);
  });
});

describe("tags", () => {
  it("finds missing required tags and a wrong Environment tag", () => {
    const content = bucket("prd").replace(TAGS("prd"), '{ Environment = "dev", Project = "trellis" }');
    expect(brief(review(content))).toEqual([
      "error TAGS_MISSING aws_s3_bucket.logs",
      "error TAG_ENVIRONMENT_MISMATCH aws_s3_bucket.logs",
    ]);
    expect(review(content)[0]?.message).toBe("aws_s3_bucket.logs lacks the required tags Owner, ManagedBy, RequestId.");
  });

  it("counts the provider's default_tags and resolves locals and merge()", () => {
    const content = bucket("prd")
      .replace(
        PROVIDER,
        `provider "aws" {\n  region = "eu-west-1"\n  default_tags {\n    tags = local.common\n  }\n}\nlocals {\n  common = ${TAGS("prd")}\n}\n`,
      )
      .replace(`tags   = ${TAGS("prd")}`, 'tags   = merge(local.common, { Name = "logs" })')
      .replace(`  tags = ${TAGS("prd")}\n`, "");
    expect(review(content)).toEqual([]);
  });

  it("tags it cannot read statically are a warning", () => {
    const content = bucket("prd").replace(`tags   = ${TAGS("prd")}`, "tags   = module.labels.tags");
    expect(brief(review(content))).toEqual(["warning TAGS_UNVERIFIABLE aws_s3_bucket.logs"]);
  });
});

describe("encryption", () => {
  it("an S3 bucket without server-side encryption", () => {
    expect(brief(review(bucket("dev", { skip: ["sse"] }), "dev"))).toEqual([
      "error ENCRYPTION_MISSING aws_s3_bucket.logs",
    ]);
  });

  it("prd wants a customer-managed key; dev accepts AES256", () => {
    const aes = bucket("prd").replace(
      'sse_algorithm     = "aws:kms"\n      kms_master_key_id = aws_kms_key.logs.arn',
      'sse_algorithm = "AES256"',
    );
    expect(brief(review(aes, "prd"))).toEqual(["error ENCRYPTION_CMK_REQUIRED aws_s3_bucket.logs"]);
    expect(review(aes.replaceAll("prd", "dev"), "dev")).toEqual([]);
  });

  it("queues and topics: managed encryption is fine in dev, not in prd; AWS-managed aliases are not customer keys", () => {
    const queue = (env: Environment, enc: string) =>
      `${PROVIDER}resource "aws_sqs_queue" "jobs" {\n  name = "trellis-${env}-jobs"\n  ${enc}\n  tags = ${TAGS(env)}\n}\n`;
    expect(review(queue("dev", "sqs_managed_sse_enabled = true"), "dev")).toEqual([]);
    expect(brief(review(queue("dev", "visibility_timeout_seconds = 30"), "dev"))).toEqual([
      "error ENCRYPTION_MISSING aws_sqs_queue.jobs",
    ]);
    expect(brief(review(queue("prd", "sqs_managed_sse_enabled = true")))).toEqual([
      "error ENCRYPTION_CMK_REQUIRED aws_sqs_queue.jobs",
    ]);
    const topic = `${PROVIDER}resource "aws_sns_topic" "alerts" {\n  name = "trellis-prd-alerts"\n  kms_master_key_id = "alias/aws/sns"\n  tags = ${TAGS("prd")}\n}\n`;
    expect(brief(review(topic))).toEqual(["error ENCRYPTION_CMK_REQUIRED aws_sns_topic.alerts"]);
    expect(review(topic.replace('"alias/aws/sns"', '"alias/trellis-prd"'))).toEqual([]);
  });

  it("KMS keys must rotate", () => {
    const content = bucket("prd").replace("enable_key_rotation = true", "enable_key_rotation = false");
    expect(brief(review(content))).toEqual(["error KMS_KEY_ROTATION aws_kms_key.logs"]);
  });
});

describe("public access", () => {
  it("a missing public access block: warning in dev, error in tst and prd", () => {
    expect(brief(review(bucket("dev", { skip: ["pab"] }), "dev"))).toEqual([
      "warning S3_PUBLIC_ACCESS_BLOCK_MISSING aws_s3_bucket.logs",
    ]);
    expect(brief(review(bucket("prd", { skip: ["pab"] })))).toEqual([
      "error S3_PUBLIC_ACCESS_BLOCK_MISSING aws_s3_bucket.logs",
    ]);
  });

  it("public settings, ACLs and policies with Principal * are errors in prd, warnings elsewhere", () => {
    const policy = `resource "aws_s3_bucket_policy" "logs" {\n  bucket = aws_s3_bucket.logs.id\n  policy = <<EOF\n{"Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "s3:GetObject"}]}\nEOF\n}\n`;
    const acl = `resource "aws_s3_bucket_acl" "logs" {\n  bucket = aws_s3_bucket.logs.id\n  acl    = "public-read"\n}\n`;
    const open = (env: Environment) =>
      bucket(env, { extra: policy + acl }).replace("restrict_public_buckets = true", "restrict_public_buckets = false");
    expect(brief(review(open("prd")))).toEqual([
      "error S3_PUBLIC_ACCESS_ENABLED aws_s3_bucket.logs",
      "error S3_PUBLIC_ACL aws_s3_bucket.logs",
      "error S3_PUBLIC_POLICY aws_s3_bucket.logs",
    ]);
    expect(brief(review(open("tst"), "tst"))).toEqual([
      "warning S3_PUBLIC_ACCESS_ENABLED aws_s3_bucket.logs",
      "warning S3_PUBLIC_ACL aws_s3_bucket.logs",
      "warning S3_PUBLIC_POLICY aws_s3_bucket.logs",
    ]);
    const denyAll = policy.replace('"Allow"', '"Deny"');
    expect(review(bucket("prd", { extra: denyAll }))).toEqual([]);
  });
});

describe("naming", () => {
  it("names follow <project>-<env>-<purpose>; S3 names follow AWS's rules; labels are snake_case", () => {
    expect(brief(review(bucket("prd", { name: "trellis-dev-logs" })))).toEqual([
      "error NAMING_CONVENTION aws_s3_bucket.logs",
    ]);
    expect(review(bucket("prd", { name: "trellis-dev-logs" }))[0]?.message).toBe(
      'aws_s3_bucket.logs is named "trellis-dev-logs"; prd names follow trellis-prd-<purpose>.',
    );
    expect(brief(review(bucket("prd", { name: "Trellis_prd_Logs" })))).toEqual([
      "error NAMING_CONVENTION aws_s3_bucket.logs",
      "error S3_BUCKET_NAME_INVALID aws_s3_bucket.logs",
    ]);
    const label = `${PROVIDER}resource "aws_sqs_queue" "JobQueue" {\n  name = "trellis-dev-jobs"\n  sqs_managed_sse_enabled = true\n  tags = ${TAGS("dev")}\n}\n`;
    expect(brief(review(label, "dev"))).toEqual(["warning TERRAFORM_LABEL aws_sqs_queue.JobQueue"]);
  });

  it("resolves names built from variables; names it cannot read are a warning", () => {
    const fromVar =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation
      bucket("prd", { name: "${var.project}-prd-logs" }) + 'variable "project" {\n  default = "trellis"\n}\n';
    expect(review(fromVar)).toEqual([]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation
    expect(brief(review(bucket("prd", { name: "${random_id.x.hex}-logs" })))).toEqual([
      "warning NAME_UNVERIFIABLE aws_s3_bucket.logs",
    ]);
  });
});

describe("environment rules", () => {
  it("versioning: required in prd, recommended in tst, optional in dev", () => {
    expect(brief(review(bucket("prd", { skip: ["versioning"] })))).toEqual([
      "error S3_VERSIONING_REQUIRED aws_s3_bucket.logs",
    ]);
    expect(brief(review(bucket("tst", { skip: ["versioning"] }), "tst"))).toEqual([
      "warning S3_VERSIONING_REQUIRED aws_s3_bucket.logs",
    ]);
    expect(review(bucket("dev", { skip: ["versioning"] }), "dev")).toEqual([]);
  });

  it("force_destroy is forbidden in prd only", () => {
    const content = (env: Environment) =>
      bucket(env).replace(`bucket = "trellis-${env}-logs"`, `bucket = "trellis-${env}-logs"\n  force_destroy = true`);
    expect(brief(review(content("prd")))).toEqual(["error FORCE_DESTROY_FORBIDDEN aws_s3_bucket.logs"]);
    expect(review(content("dev"), "dev")).toEqual([]);
  });

  it("DynamoDB in prd: point-in-time recovery and deletion protection", () => {
    const table = `${PROVIDER}resource "aws_kms_key" "t" {\n  enable_key_rotation = true\n  tags = ${TAGS("prd")}\n}\nresource "aws_dynamodb_table" "sessions" {\n  name     = "trellis-prd-sessions"\n  hash_key = "id"\n  tags     = ${TAGS("prd")}\n  server_side_encryption {\n    enabled     = true\n    kms_key_arn = aws_kms_key.t.arn\n  }\n}\n`;
    expect(brief(review(table))).toEqual([
      "error DDB_PITR_REQUIRED aws_dynamodb_table.sessions",
      "error DDB_DELETION_PROTECTION_REQUIRED aws_dynamodb_table.sessions",
    ]);
    const safe = table.replace(
      'hash_key = "id"',
      'hash_key = "id"\n  deletion_protection_enabled = true\n  point_in_time_recovery {\n    enabled = true\n  }',
    );
    expect(review(safe)).toEqual([]);
  });
});
