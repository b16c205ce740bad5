/**
 * The agents' inputs and outputs as zod schemas (the seed's `contracts.py`, Pydantic → zod). Every
 * agent output is validated against its schema before it enters the pipeline state, whether an offline
 * agent or a model produced it.
 */
import { z } from "zod";

/**
 * The environments a pipeline targets.
 *
 * @example
 * Environment.parse("prd"); // "prd"
 */
export const Environment = z.enum(["dev", "tst", "prd"]);
/** `"dev" | "tst" | "prd"`. */
export type Environment = z.infer<typeof Environment>;

/**
 * What the orchestrator decided the user wants (the seed's `classify_intent`).
 *
 * @example
 * const intent: Intent = "change";
 */
export type Intent = "change" | "query" | "conversation";

/**
 * The resource kinds the offline agents know. A model may plan others; the review still checks them.
 *
 * @example
 * ResourceKind.parse("s3_bucket");
 */
export const ResourceKind = z.enum(["s3_bucket", "sqs_queue", "dynamodb_table", "sns_topic"]);
/** One of {@link ResourceKind}'s values. */
export type ResourceKind = z.infer<typeof ResourceKind>;

/**
 * What a change does to a resource.
 *
 * @example
 * ChangeAction.parse("create");
 */
export const ChangeAction = z.enum(["create", "update", "delete"]);
/** `"create" | "update" | "delete"`. */
export type ChangeAction = z.infer<typeof ChangeAction>;

/**
 * One resource a plan changes, with the features the request asked for.
 *
 * @example
 * const spec: ResourceSpec = { kind: "s3_bucket", action: "create", label: "logs", name: "trellis-prd-logs",
 *   purpose: "logs", features: { versioning: true } };
 */
export const ResourceSpec = z.object({
  kind: ResourceKind,
  action: ChangeAction,
  /** Terraform label (`aws_s3_bucket.<label>`), snake_case. */
  label: z.string().regex(/^[a-z][a-z0-9_]*$/, "a snake_case Terraform label"),
  /** Physical name, `<project>-<env>-<purpose>`. */
  name: z.string().min(1),
  purpose: z.string().min(1),
  features: z.object({
    versioning: z.boolean().optional(),
    public: z.boolean().optional(),
    kms: z.boolean().optional(),
    retention_days: z.number().int().positive().optional(),
    fifo: z.boolean().optional(),
    hash_key: z.string().optional(),
  }),
});
/** See {@link ResourceSpec}. */
export type ResourceSpec = z.infer<typeof ResourceSpec>;

/**
 * A requirement of a plan; `source` says whether the user asked for it or a policy demands it.
 *
 * @example
 * const r: Requirement = { id: "REQ-1", description: "Create the bucket", source: "request" };
 */
export const Requirement = z.object({
  id: z.string().regex(/^REQ-\d+$/),
  description: z.string().min(1),
  source: z.enum(["request", "policy"]),
});
/** See {@link Requirement}. */
export type Requirement = z.infer<typeof Requirement>;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);

/**
 * A machine-checkable acceptance check, evaluated against the Terraform files by deploy-validate.
 * `subject` (`aws_s3_bucket.logs`) restricts the check to that resource or to resources referencing it.
 * In `attributes`, the expected value `"*"` means "set to anything". `encrypted_at_rest` and
 * `public_access_blocked` accept every way AWS offers (SSE-S3 or KMS, managed SSE or a key…).
 *
 * @example
 * const check: CriterionCheck = { type: "attributes", resource_type: "aws_s3_bucket_versioning",
 *   subject: "aws_s3_bucket.logs", expect: { "versioning_configuration.status": "Enabled" } };
 */
export const CriterionCheck = z.discriminatedUnion("type", [
  z.object({ type: z.literal("resource_exists"), resource_type: z.string(), name: z.string().optional() }),
  z.object({
    type: z.literal("attributes"),
    resource_type: z.string(),
    subject: z.string().optional(),
    expect: z.record(z.string(), Scalar),
  }),
  z.object({ type: z.literal("tags_present"), keys: z.array(z.string()).min(1) }),
  z.object({ type: z.literal("resource_removed"), address: z.string() }),
  z.object({ type: z.literal("encrypted_at_rest"), subject: z.string() }),
  z.object({ type: z.literal("public_access_blocked"), subject: z.string() }),
]);
/** See {@link CriterionCheck}. */
export type CriterionCheck = z.infer<typeof CriterionCheck>;

/**
 * An acceptance criterion: a sentence for people and a check for the validator.
 *
 * @example
 * const ac: AcceptanceCriterion = { id: "AC-1", description: "The bucket exists",
 *   check: { type: "resource_exists", resource_type: "aws_s3_bucket", name: "trellis-prd-logs" } };
 */
export const AcceptanceCriterion = z.object({
  id: z.string().regex(/^AC-\d+$/),
  description: z.string().min(1),
  check: CriterionCheck,
});
/** See {@link AcceptanceCriterion}. */
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterion>;

/**
 * How much a change can hurt.
 *
 * @example
 * Impact.parse("high");
 */
export const Impact = z.enum(["low", "medium", "high"]);
/** `"low" | "medium" | "high"`. */
export type Impact = z.infer<typeof Impact>;

/**
 * The Planning Agent's output: requirements, acceptance criteria, a cost estimate, and whether a
 * person must approve the plan (always in prd and for high-impact changes).
 *
 * @example
 * const plan = PlanningOutput.parse(json);
 * if (plan.requires_approval) console.log(plan.approval_reasons.join("; "));
 */
export const PlanningOutput = z.object({
  request_id: z.string().min(1),
  request: z.string(),
  environment: Environment,
  summary: z.string(),
  resources: z.array(ResourceSpec),
  requirements: z.array(Requirement),
  acceptance_criteria: z.array(AcceptanceCriterion),
  cost_estimate: z.string(),
  impact: Impact,
  impact_reasons: z.array(z.string()),
  requires_approval: z.boolean(),
  approval_reasons: z.array(z.string()),
  /** `offline` or `<provider>:<model>`. */
  generated_by: z.string(),
});
/** See {@link PlanningOutput}. */
export type PlanningOutput = z.infer<typeof PlanningOutput>;

/**
 * A file an agent wrote, as the state records it (content stays on disk).
 *
 * @example
 * const f: ArtifactFile = { path: "main.tf", sha256: "ab12…", bytes: 812 };
 */
export const ArtifactFile = z.object({
  path: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
});
/** See {@link ArtifactFile}. */
export type ArtifactFile = z.infer<typeof ArtifactFile>;

/**
 * The IaC Agent's output: the Terraform files of one revision, under the request's directory.
 *
 * @example
 * const iac = IaCOutput.parse(json);
 * console.log(`${iac.directory}: ${iac.files.map((f) => f.path).join(", ")}`);
 */
export const IaCOutput = z.object({
  request_id: z.string(),
  directory: z.string(),
  /** 1 for the first draft, then one more per revision. */
  revision: z.number().int().positive(),
  files: z.array(ArtifactFile),
  /** Resource addresses declared, e.g. `aws_s3_bucket.logs`. */
  resources: z.array(z.string()),
  /** What this revision did. */
  changes: z.array(z.string()),
  /** Review findings this revision deliberately left alone, and why. */
  unresolved: z.array(z.object({ rule: z.string(), resource: z.string().optional(), reason: z.string() })),
  /** Rules the offline generator applies from now on (`RULE@address`), carried from revision to revision. */
  applied_fixes: z.array(z.string()),
  generated_by: z.string(),
});
/** See {@link IaCOutput}. */
export type IaCOutput = z.infer<typeof IaCOutput>;

/**
 * The Review Agent's verdict values (the seed's `ReviewStatus` enum).
 *
 * @example
 * if (review.status === ReviewStatus.NEEDS_REVISION) retry();
 */
export const ReviewStatus = { PASSED: "passed", NEEDS_REVISION: "needs_revision", FAILED: "failed" } as const;
/** `"passed" | "needs_revision" | "failed"`. */
export type ReviewStatus = (typeof ReviewStatus)[keyof typeof ReviewStatus];

/**
 * The areas the static review covers.
 *
 * @example
 * const c: CheckCategory = "public_access";
 */
export const CheckCategory = z.enum([
  "syntax",
  "structure",
  "tags",
  "encryption",
  "public_access",
  "naming",
  "environment",
]);
/** See {@link CheckCategory}. */
export type CheckCategory = z.infer<typeof CheckCategory>;

/**
 * One problem the review found. `critical` fails the review outright, `error` asks for a revision,
 * `warning` is reported and does not block.
 *
 * @example
 * const f: Finding = { rule: "ENCRYPTION_CMK_REQUIRED", category: "encryption", severity: "error",
 *   resource: "aws_s3_bucket.logs", file: "main.tf", line: 3, message: "…", fix: "…" };
 */
export const Finding = z.object({
  rule: z.string(),
  category: CheckCategory,
  severity: z.enum(["critical", "error", "warning"]),
  resource: z.string().optional(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  message: z.string(),
  fix: z.string().optional(),
});
/** See {@link Finding}. */
export type Finding = z.infer<typeof Finding>;

/**
 * The Review Agent's output.
 *
 * @example
 * const review = ReviewOutput.parse(json);
 * review.findings.filter((f) => f.severity === "error");
 */
export const ReviewOutput = z.object({
  status: z.enum([ReviewStatus.PASSED, ReviewStatus.NEEDS_REVISION, ReviewStatus.FAILED]),
  findings: z.array(Finding),
  checks: z.array(z.object({ category: CheckCategory, passed: z.boolean(), findings: z.number().int() })),
  files_reviewed: z.array(z.object({ path: z.string(), sha256: z.string() })),
  /** The IaC revision reviewed. */
  revision: z.number().int().nonnegative(),
  summary: z.string(),
});
/** See {@link ReviewOutput}. */
export type ReviewOutput = z.infer<typeof ReviewOutput>;

/**
 * The Deploy-Validate Agent's output: what happened to the deployment, never a simulated success.
 * `applied` — the executor (`terraform`/`tofu`) ran init, plan and apply of the reviewed files, each
 * with exit code 0; `refused` — nothing was run (no executor, so nothing was changed); `failed` — the
 * files changed since the review, an acceptance criterion is not met by the files, or a command failed
 * (its output and exit code are in `steps`).
 *
 * @example
 * const d = DeploymentOutput.parse(json);
 * if (d.status === "applied") d.steps.map((s) => s.exit_code); // [0, 0, 0]
 */
export const DeploymentOutput = z.object({
  status: z.enum(["applied", "planned", "refused", "failed"]),
  /** The executor that ran, or `none`. */
  mode: z.enum(["terraform", "tofu", "none"]),
  environment: Environment,
  planned_changes: z.array(z.object({ address: z.string(), action: ChangeAction })),
  criteria: z.array(z.object({ id: z.string(), description: z.string(), passed: z.boolean(), evidence: z.string() })),
  validated_files: z.array(z.object({ path: z.string(), sha256: z.string() })),
  /** The commands the executor ran, in order, with exit code and captured output. */
  steps: z.array(z.object({ command: z.string(), exit_code: z.number().int(), output: z.string() })),
  summary: z.string(),
});
/** See {@link DeploymentOutput}. */
export type DeploymentOutput = z.infer<typeof DeploymentOutput>;
