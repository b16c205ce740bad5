/**
 * The offline IaC Agent's Terraform writer: the plan's resources as AWS provider v5 configuration.
 * The first draft implements what the plan's requirements say (encryption with AWS-managed keys,
 * public access blocked unless requested, tags, naming); review findings it has accepted (`fixes`,
 * `RULE@address`) make the next revisions stricter — a customer-managed KMS key, versioning,
 * point-in-time recovery, deletion protection.
 */
import type { PlanningOutput, ResourceSpec } from "../contracts.js";
import { type PipelinePolicy, requiredTagValues } from "../policy.js";
import { TERRAFORM_TYPE } from "../terraform/aws-facts.js";
import { attr, block, expr, type HclNode, renderHcl } from "../terraform/hcl-writer.js";

/**
 * Inputs of {@link generateTerraform}.
 *
 * @example
 * generateTerraform({ plan, policy, fixes: new Set(["ENCRYPTION_CMK_REQUIRED@aws_s3_bucket.logs"]) });
 */
export interface GenerateInput {
  plan: PlanningOutput;
  policy: PipelinePolicy;
  /** Review rules to satisfy, as `RULE@address`. */
  fixes: ReadonlySet<string>;
}

/**
 * Review rules the generator knows how to satisfy when told to, by what it changes.
 *
 * @example
 * FIXABLE_RULES.ENCRYPTION_CMK_REQUIRED; // "encrypt with a customer-managed KMS key that rotates"
 */
export const FIXABLE_RULES: Readonly<Record<string, string>> = {
  ENCRYPTION_CMK_REQUIRED: "encrypt with a customer-managed KMS key that rotates",
  S3_VERSIONING_REQUIRED: "enable versioning",
  DDB_PITR_REQUIRED: "enable point-in-time recovery",
  DDB_DELETION_PROTECTION_REQUIRED: "enable deletion protection",
};

/**
 * Writes the files of one revision: `versions.tf`, `providers.tf`, `variables.tf`, `locals.tf`,
 * `main.tf` and `outputs.tf`.
 *
 * @example
 * for (const f of generateTerraform({ plan, policy, fixes: new Set() })) console.log(f.path);
 */
export function generateTerraform(input: GenerateInput): Array<{ path: string; content: string }> {
  const { plan, policy } = input;
  const tags = requiredTagValues(policy, plan.environment, plan.request_id);
  const header = `# ${plan.request_id} (${plan.environment}): ${plan.summary}\n# Written by the infra-pipeline IaC Agent. Requirements: ${plan.requirements.map((r) => r.id).join(", ") || "none"}.\n\n`;
  const main: HclNode[] = [];
  const outputs: HclNode[] = [];
  for (const spec of plan.resources) {
    if (spec.action === "delete") {
      main.push(
        block(
          "removed",
          [],
          [
            attr("from", expr(`${TERRAFORM_TYPE[spec.kind]}.${spec.label}`)),
            block("lifecycle", [], [attr("destroy", true)]),
          ],
        ),
      );
      continue;
    }
    const has = (rule: string) => input.fixes.has(`${rule}@${TERRAFORM_TYPE[spec.kind]}.${spec.label}`);
    main.push(...resourceBlocks(spec, has));
    outputs.push(
      block(
        "output",
        [`${spec.label}_arn`],
        [
          attr("description", `ARN of ${spec.name}`),
          attr("value", expr(`${TERRAFORM_TYPE[spec.kind]}.${spec.label}.arn`)),
        ],
      ),
    );
  }
  const files = [
    {
      path: "versions.tf",
      content: renderHcl([
        block(
          "terraform",
          [],
          [
            attr("required_version", ">= 1.7.0"),
            block("required_providers", [], [attr("aws", { source: "hashicorp/aws", version: "~> 5.0" })]),
          ],
        ),
      ]),
    },
    {
      path: "providers.tf",
      content: renderHcl([block("provider", ["aws"], [attr("region", expr("var.aws_region"))])]),
    },
    {
      path: "variables.tf",
      content: renderHcl([
        block(
          "variable",
          ["aws_region"],
          [
            attr("description", "AWS region to deploy to"),
            attr("type", expr("string")),
            attr("default", policy.region),
          ],
        ),
      ]),
    },
    { path: "locals.tf", content: renderHcl([block("locals", [], [attr("common_tags", tags)])]) },
    { path: "main.tf", content: header + renderHcl(main) },
  ];
  if (outputs.length > 0) files.push({ path: "outputs.tf", content: renderHcl(outputs) });
  return files;
}

function tagsFor(name: string, purpose: string) {
  return expr(
    `merge(local.common_tags, {\n    Name    = ${JSON.stringify(name)}\n    Purpose = ${JSON.stringify(purpose)}\n  })`,
  );
}

function kmsKey(spec: ResourceSpec): HclNode {
  return block(
    "resource",
    ["aws_kms_key", spec.label],
    [
      attr("description", `Encryption key for ${spec.name}`),
      attr("enable_key_rotation", true),
      attr("deletion_window_in_days", 30),
      attr("tags", tagsFor(`${spec.name}-key`, spec.purpose)),
    ],
  );
}

function resourceBlocks(spec: ResourceSpec, has: (rule: string) => boolean): HclNode[] {
  const f = spec.features;
  const kms = f.kms === true || has("ENCRYPTION_CMK_REQUIRED");
  const keyArn = expr(`aws_kms_key.${spec.label}.arn`);
  const ref = (type: string, field: string) => expr(`${type}.${spec.label}.${field}`);
  const out: HclNode[] = kms ? [kmsKey(spec)] : [];
  switch (spec.kind) {
    case "s3_bucket": {
      const bucket = ref("aws_s3_bucket", "id");
      out.push(
        block(
          "resource",
          ["aws_s3_bucket", spec.label],
          [attr("bucket", spec.name), attr("tags", tagsFor(spec.name, spec.purpose))],
        ),
      );
      if (f.versioning || has("S3_VERSIONING_REQUIRED")) {
        out.push(
          block(
            "resource",
            ["aws_s3_bucket_versioning", spec.label],
            [attr("bucket", bucket), block("versioning_configuration", [], [attr("status", "Enabled")])],
          ),
        );
      } else if (f.versioning === false) {
        // versioning removed: S3 cannot return to "never versioned"; Suspended is the change AWS offers
        out.push(
          block(
            "resource",
            ["aws_s3_bucket_versioning", spec.label],
            [attr("bucket", bucket), block("versioning_configuration", [], [attr("status", "Suspended")])],
          ),
        );
      }
      const sse = kms
        ? [attr("sse_algorithm", "aws:kms"), attr("kms_master_key_id", keyArn)]
        : [attr("sse_algorithm", "AES256")];
      out.push(
        block(
          "resource",
          ["aws_s3_bucket_server_side_encryption_configuration", spec.label],
          [
            attr("bucket", bucket),
            block(
              "rule",
              [],
              [
                block("apply_server_side_encryption_by_default", [], sse),
                ...(kms ? [attr("bucket_key_enabled", true)] : []),
              ],
            ),
          ],
        ),
      );
      const blocked = f.public !== true;
      out.push(
        block(
          "resource",
          ["aws_s3_bucket_public_access_block", spec.label],
          [
            attr("bucket", bucket),
            attr("block_public_acls", blocked),
            attr("block_public_policy", blocked),
            attr("ignore_public_acls", blocked),
            attr("restrict_public_buckets", blocked),
          ],
        ),
      );
      if (!blocked) {
        out.push(
          block(
            "resource",
            ["aws_s3_bucket_policy", spec.label],
            [
              attr("bucket", bucket),
              attr(
                "policy",
                expr(
                  `jsonencode({\n    Version = "2012-10-17"\n    Statement = [{\n      Sid       = "PublicRead"\n      Effect    = "Allow"\n      Principal = "*"\n      Action    = "s3:GetObject"\n      Resource  = "\${aws_s3_bucket.${spec.label}.arn}/*"\n    }]\n  })`,
                ),
              ),
              attr("depends_on", [expr(`aws_s3_bucket_public_access_block.${spec.label}`)]),
            ],
          ),
        );
      }
      if (f.retention_days !== undefined) {
        out.push(
          block(
            "resource",
            ["aws_s3_bucket_lifecycle_configuration", spec.label],
            [
              attr("bucket", bucket),
              block(
                "rule",
                [],
                [
                  attr("id", `expire-after-${f.retention_days}-days`),
                  attr("status", "Enabled"),
                  block("filter", [], []),
                  block("expiration", [], [attr("days", f.retention_days)]),
                ],
              ),
            ],
          ),
        );
      }
      return out;
    }
    case "sqs_queue": {
      out.push(
        block(
          "resource",
          ["aws_sqs_queue", spec.label],
          [
            attr("name", spec.name),
            ...(f.fifo ? [attr("fifo_queue", true)] : []),
            ...(f.retention_days !== undefined ? [attr("message_retention_seconds", f.retention_days * 86_400)] : []),
            ...(kms ? [attr("kms_master_key_id", keyArn)] : [attr("sqs_managed_sse_enabled", true)]),
            attr("tags", tagsFor(spec.name, spec.purpose)),
          ],
        ),
      );
      return out;
    }
    case "sns_topic": {
      out.push(
        block(
          "resource",
          ["aws_sns_topic", spec.label],
          [
            attr("name", spec.name),
            ...(f.fifo ? [attr("fifo_topic", true)] : []),
            attr("kms_master_key_id", kms ? keyArn : "alias/aws/sns"),
            attr("tags", tagsFor(spec.name, spec.purpose)),
          ],
        ),
      );
      return out;
    }
    case "dynamodb_table": {
      const key = f.hash_key ?? "id";
      out.push(
        block(
          "resource",
          ["aws_dynamodb_table", spec.label],
          [
            attr("name", spec.name),
            attr("billing_mode", "PAY_PER_REQUEST"),
            attr("hash_key", key),
            ...(has("DDB_DELETION_PROTECTION_REQUIRED") ? [attr("deletion_protection_enabled", true)] : []),
            attr("tags", tagsFor(spec.name, spec.purpose)),
            block("attribute", [], [attr("name", key), attr("type", "S")]),
            ...(has("DDB_PITR_REQUIRED") ? [block("point_in_time_recovery", [], [attr("enabled", true)])] : []),
            ...(kms ? [block("server_side_encryption", [], [attr("enabled", true), attr("kms_key_arn", keyArn)])] : []),
          ],
        ),
      );
      return out;
    }
  }
}
