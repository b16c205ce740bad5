/**
 * The review's static checks over a parsed Terraform module: syntax, structure, tags, encryption,
 * public access, naming and environment rules. Each returns findings; none runs Terraform or calls AWS.
 */
import type { CheckCategory, Environment, Finding, PlanningOutput } from "../contracts.js";
import { followsNamingConvention, type PipelinePolicy, TAGGABLE_TYPES } from "../policy.js";
import {
  describe,
  effectiveTags,
  encryptionOf,
  physicalNameOf,
  publicAccessOf,
  TERRAFORM_TYPE,
} from "../terraform/aws-facts.js";
import { resourcesFor, type TfModule, type TfResource, valueAt } from "../terraform/terraform-module.js";

/**
 * What the rules look at.
 *
 * @example
 * const findings = runReviewRules({ module: mod, environment: "prd", policy, plan });
 */
export interface ReviewInput {
  module: TfModule;
  environment: Environment;
  policy: PipelinePolicy;
  /** When given, the files must declare what the plan changes. */
  plan?: PlanningOutput | null;
  /** Number of `.tf` files (zero is a critical finding). */
  fileCount: number;
}

type Rule = (input: ReviewInput) => Finding[];

/**
 * The categories in the order the review reports them.
 *
 * @example
 * REVIEW_CATEGORIES[0]; // "syntax"
 */
export const REVIEW_CATEGORIES: readonly CheckCategory[] = [
  "syntax",
  "structure",
  "tags",
  "encryption",
  "public_access",
  "naming",
  "environment",
];

function finding(
  category: CheckCategory,
  severity: Finding["severity"],
  rule: string,
  message: string,
  where: { resource?: string; file?: string; line?: number; fix?: string } = {},
): Finding {
  const out: Finding = { rule, category, severity, message };
  if (where.resource !== undefined) out.resource = where.resource;
  if (where.file !== undefined) out.file = where.file;
  if (where.line !== undefined) out.line = where.line;
  if (where.fix !== undefined) out.fix = where.fix;
  return out;
}

const at = (r: TfResource, line?: number) => ({ resource: r.address, file: r.file, line: line ?? r.block.line });
const ofType = (mod: TfModule, type: string) => mod.resources.filter((r) => r.type === type);

const syntax: Rule = ({ module }) =>
  module.errors.map((e) =>
    finding("syntax", "error", "HCL_SYNTAX", `Syntax error: ${e.message}`, {
      file: e.file,
      line: e.line,
      fix: "Rewrite the file as valid HCL.",
    }),
  );

const structure: Rule = ({ module, fileCount, plan }) => {
  if (fileCount === 0) {
    return [finding("structure", "critical", "NO_TERRAFORM_FILES", "The request directory holds no .tf files.")];
  }
  const out: Finding[] = [];
  if (module.resources.length === 0 && module.removed.length === 0 && module.errors.length === 0) {
    out.push(
      finding("structure", "critical", "NO_RESOURCES", "The configuration declares no resource and removes none.", {
        fix: "The plan names no resource the agents can implement; refine the request.",
      }),
    );
  }
  if (!module.providers.some((p) => p.labels[0] === "aws")) {
    out.push(finding("structure", "warning", "PROVIDER_MISSING", 'No provider "aws" block; the region is unset.'));
  }
  for (const spec of plan?.resources ?? []) {
    const type = TERRAFORM_TYPE[spec.kind];
    const address = `${type}.${spec.label}`;
    if (spec.action === "delete") {
      if (!module.removed.some((r) => r.from === address && r.destroy)) {
        out.push(
          finding(
            "structure",
            "error",
            "PLANNED_REMOVAL_MISSING",
            `The plan deletes ${address}, but no removed block does.`,
            {
              resource: address,
              fix: `Add removed { from = ${address} lifecycle { destroy = true } }.`,
            },
          ),
        );
      }
    } else if (!ofType(module, type).some((r) => physicalNameOf(module, r)?.value === spec.name)) {
      out.push(
        finding(
          "structure",
          "error",
          "PLANNED_RESOURCE_MISSING",
          `The plan needs ${type} "${spec.name}", which no file declares.`,
          {
            resource: address,
            fix: `Declare resource "${type}" "${spec.label}" with the name "${spec.name}".`,
          },
        ),
      );
    }
  }
  return out;
};

const tags: Rule = ({ module, environment, policy }) => {
  const out: Finding[] = [];
  for (const r of module.resources.filter((x) => TAGGABLE_TYPES.has(x.type))) {
    const { tags: found, unknown } = effectiveTags(module, r);
    const missing = policy.requiredTags.filter((t) => !(t in found));
    const line = r.block.attributes.tags?.line;
    if (missing.length > 0 && unknown) {
      out.push(
        finding(
          "tags",
          "warning",
          "TAGS_UNVERIFIABLE",
          `Cannot read all tags of ${r.address} statically; ${missing.join(", ")} not confirmed.`,
          at(r, line),
        ),
      );
    } else if (missing.length > 0) {
      out.push(
        finding("tags", "error", "TAGS_MISSING", `${r.address} lacks the required tags ${missing.join(", ")}.`, {
          ...at(r, line),
          fix: `Add ${missing.map((t) => `${t} = …`).join(", ")} to tags (or the provider's default_tags).`,
        }),
      );
    }
    const env = found.Environment;
    if (typeof env === "string" && env !== environment) {
      out.push(
        finding(
          "tags",
          "error",
          "TAG_ENVIRONMENT_MISMATCH",
          `${r.address} is tagged Environment = "${env}" but deploys to ${environment}.`,
          {
            ...at(r, line),
            fix: `Set Environment = "${environment}".`,
          },
        ),
      );
    }
  }
  return out;
};

const encryption: Rule = ({ module, environment }) => {
  const out: Finding[] = [];
  for (const r of module.resources) {
    const enc = encryptionOf(module, r);
    if (!enc) continue;
    if (!enc.encrypted) {
      out.push(
        finding(
          "encryption",
          "error",
          "ENCRYPTION_MISSING",
          `${r.address} is not encrypted at rest (${enc.evidence}).`,
          {
            ...at(r),
            fix:
              r.type === "aws_s3_bucket"
                ? "Add an aws_s3_bucket_server_side_encryption_configuration for the bucket."
                : "Set sqs_managed_sse_enabled = true or kms_master_key_id.",
          },
        ),
      );
    } else if (environment === "prd" && !enc.customerManaged) {
      out.push(
        finding(
          "encryption",
          "error",
          "ENCRYPTION_CMK_REQUIRED",
          `${r.address} must use a customer-managed KMS key in prd (${enc.evidence}).`,
          {
            ...at(r),
            file: enc.file,
            line: enc.line,
            fix: "Create an aws_kms_key with enable_key_rotation = true and encrypt with it (aws:kms).",
          },
        ),
      );
    }
  }
  for (const key of ofType(module, "aws_kms_key")) {
    if (valueAt(module, key.block, "enable_key_rotation") !== true) {
      out.push(
        finding("encryption", "error", "KMS_KEY_ROTATION", `${key.address} does not rotate its key material.`, {
          ...at(key),
          fix: "Set enable_key_rotation = true.",
        }),
      );
    }
  }
  return out;
};

const publicAccess: Rule = ({ module, environment }) => {
  const out: Finding[] = [];
  const severity: Finding["severity"] = environment === "prd" ? "error" : "warning";
  for (const bucket of ofType(module, "aws_s3_bucket")) {
    const fact = publicAccessOf(module, bucket);
    if (!fact.block) {
      out.push(
        finding(
          "public_access",
          environment === "dev" ? "warning" : "error",
          "S3_PUBLIC_ACCESS_BLOCK_MISSING",
          `${bucket.address} has no public access block.`,
          {
            ...at(bucket),
            fix: "Add an aws_s3_bucket_public_access_block with all four settings true.",
          },
        ),
      );
    } else if (fact.block.disabled.length > 0) {
      out.push(
        finding(
          "public_access",
          severity,
          "S3_PUBLIC_ACCESS_ENABLED",
          `${bucket.address} allows public access: ${fact.block.disabled.join(", ")} not true (${environment} forbids public buckets${environment === "prd" ? "" : " in prd; warning here"}).`,
          {
            resource: bucket.address,
            file: fact.block.file,
            line: fact.block.line,
            fix: "Set block_public_acls, block_public_policy, ignore_public_acls and restrict_public_buckets to true.",
          },
        ),
      );
    }
    if (fact.publicAcl) {
      out.push(
        finding(
          "public_access",
          severity,
          "S3_PUBLIC_ACL",
          `${bucket.address} grants the ACL "${fact.publicAcl.value}".`,
          {
            resource: bucket.address,
            file: fact.publicAcl.file,
            line: fact.publicAcl.line,
            fix: 'Remove the ACL (use "private" or bucket ownership controls).',
          },
        ),
      );
    }
    if (fact.publicPolicy) {
      out.push(
        finding(
          "public_access",
          severity,
          "S3_PUBLIC_POLICY",
          `${fact.publicPolicy.address} allows Principal "*" on ${bucket.address}.`,
          {
            resource: bucket.address,
            file: fact.publicPolicy.file,
            line: fact.publicPolicy.line,
            fix: "Grant named principals only, or serve the content through CloudFront with origin access control.",
          },
        ),
      );
    }
  }
  return out;
};

const S3_NAME = /^(?!xn--)(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

const naming: Rule = ({ module, environment, policy }) => {
  const out: Finding[] = [];
  for (const r of module.resources) {
    if (!/^[a-z][a-z0-9_]*$/.test(r.label)) {
      out.push(
        finding("naming", "warning", "TERRAFORM_LABEL", `Label "${r.label}" of ${r.address} is not snake_case.`, at(r)),
      );
    }
    const name = physicalNameOf(module, r);
    if (!name) continue;
    if (!(typeof name.value === "string")) {
      out.push(
        finding(
          "naming",
          "warning",
          "NAME_UNVERIFIABLE",
          `Cannot read the name of ${r.address} statically (${describe(name.value)}).`,
          at(r, name.line),
        ),
      );
      continue;
    }
    const expected = `${policy.project}-${environment}-<purpose>`;
    if (!followsNamingConvention(policy, environment, name.value)) {
      out.push(
        finding(
          "naming",
          "error",
          "NAMING_CONVENTION",
          `${r.address} is named "${name.value}"; ${environment} names follow ${expected}.`,
          {
            ...at(r, name.line),
            fix: `Rename it to ${expected} (lowercase, digits and "-").`,
          },
        ),
      );
    }
    if (r.type === "aws_s3_bucket" && !S3_NAME.test(name.value)) {
      out.push(
        finding(
          "naming",
          "error",
          "S3_BUCKET_NAME_INVALID",
          `"${name.value}" is not a valid S3 bucket name (3–63 lowercase letters, digits, "." and "-").`,
          {
            ...at(r, name.line),
          },
        ),
      );
    }
  }
  return out;
};

const environmentRules: Rule = ({ module, environment }) => {
  const out: Finding[] = [];
  for (const bucket of ofType(module, "aws_s3_bucket")) {
    const versioning = resourcesFor(module, "aws_s3_bucket_versioning", bucket.address).some(
      (v) => valueAt(module, v.block, "versioning_configuration.status") === "Enabled",
    );
    const inline = valueAt(module, bucket.block, "versioning.enabled") === true;
    if (!versioning && !inline && environment !== "dev") {
      out.push(
        finding(
          "environment",
          environment === "prd" ? "error" : "warning",
          "S3_VERSIONING_REQUIRED",
          `${bucket.address} has no versioning; ${environment} buckets keep object versions.`,
          {
            ...at(bucket),
            fix: 'Add an aws_s3_bucket_versioning with versioning_configuration { status = "Enabled" }.',
          },
        ),
      );
    }
    const forceDestroy = bucket.block.attributes.force_destroy;
    if (environment === "prd" && forceDestroy && valueAt(module, bucket.block, "force_destroy") === true) {
      out.push(
        finding(
          "environment",
          "error",
          "FORCE_DESTROY_FORBIDDEN",
          `${bucket.address} sets force_destroy = true, which deletes every object with the bucket.`,
          {
            ...at(bucket, forceDestroy.line),
            fix: "Remove force_destroy (or set it to false) in prd.",
          },
        ),
      );
    }
  }
  if (environment === "prd") {
    for (const table of ofType(module, "aws_dynamodb_table")) {
      if (valueAt(module, table.block, "point_in_time_recovery.enabled") !== true) {
        out.push(
          finding("environment", "error", "DDB_PITR_REQUIRED", `${table.address} has no point-in-time recovery.`, {
            ...at(table),
            fix: "Add point_in_time_recovery { enabled = true }.",
          }),
        );
      }
      if (valueAt(module, table.block, "deletion_protection_enabled") !== true) {
        out.push(
          finding(
            "environment",
            "error",
            "DDB_DELETION_PROTECTION_REQUIRED",
            `${table.address} is not protected against deletion.`,
            {
              ...at(table),
              fix: "Set deletion_protection_enabled = true.",
            },
          ),
        );
      }
    }
  }
  return out;
};

const RULES: Record<CheckCategory, Rule> = {
  syntax,
  structure,
  tags,
  encryption,
  public_access: publicAccess,
  naming,
  environment: environmentRules,
};

/**
 * Runs every rule and returns the findings, in category order.
 *
 * @example
 * const findings = runReviewRules({ module, environment: "prd", policy, plan, fileCount: 5 });
 * findings.filter((f) => f.severity !== "warning");
 */
export function runReviewRules(input: ReviewInput): Finding[] {
  return REVIEW_CATEGORIES.flatMap((category) => RULES[category](input));
}
