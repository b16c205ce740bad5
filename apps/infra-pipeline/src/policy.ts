/**
 * The organisation's infrastructure policy: naming convention, required tags, and which rules are
 * stricter in which environment. Planning, IaC and review all read it, so the three agree.
 */
import type { Environment, Impact } from "./contracts.js";

/**
 * Settings of the policy.
 *
 * @example
 * const policy = resolvePolicy({ project: "acme" });
 */
export interface PipelinePolicy {
  /** First segment of every physical name: `<project>-<env>-<purpose>`. */
  project: string;
  /** Value of the `Owner` tag. */
  owner: string;
  /** AWS region written into the provider. */
  region: string;
  /** Tags every taggable resource must carry. */
  requiredTags: readonly string[];
}

/**
 * The default policy.
 *
 * @example
 * DEFAULT_POLICY.requiredTags; // ["Environment", "Project", "Owner", "ManagedBy", "RequestId"]
 */
export const DEFAULT_POLICY: PipelinePolicy = {
  project: "trellis",
  owner: "platform-team",
  region: "eu-west-1",
  requiredTags: ["Environment", "Project", "Owner", "ManagedBy", "RequestId"],
};

/**
 * The default policy with overrides.
 *
 * @example
 * resolvePolicy({ project: "acme" }).project; // "acme"
 */
export function resolvePolicy(overrides: Partial<PipelinePolicy> = {}): PipelinePolicy {
  return { ...DEFAULT_POLICY, ...overrides };
}

/**
 * Resource types that take `tags`.
 *
 * @example
 * TAGGABLE_TYPES.has("aws_s3_bucket"); // true
 */
export const TAGGABLE_TYPES: ReadonlySet<string> = new Set([
  "aws_s3_bucket",
  "aws_sqs_queue",
  "aws_dynamodb_table",
  "aws_sns_topic",
  "aws_kms_key",
]);

/**
 * The attribute that holds a resource type's physical name.
 *
 * @example
 * NAME_ATTRIBUTE.aws_s3_bucket; // "bucket"
 */
export const NAME_ATTRIBUTE: Readonly<Record<string, string>> = {
  aws_s3_bucket: "bucket",
  aws_sqs_queue: "name",
  aws_dynamodb_table: "name",
  aws_sns_topic: "name",
};

/**
 * The physical name the convention gives a resource.
 *
 * @example
 * physicalName(DEFAULT_POLICY, "prd", "logs"); // "trellis-prd-logs"
 */
export function physicalName(policy: PipelinePolicy, environment: Environment, purpose: string): string {
  const slug = purpose
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `${policy.project}-${environment}-${slug || "resource"}`;
}

/**
 * Whether a name follows `<project>-<env>-<purpose>` (with an optional `.fifo` suffix for queues and
 * topics).
 *
 * @example
 * followsNamingConvention(DEFAULT_POLICY, "prd", "trellis-prd-logs"); // true
 */
export function followsNamingConvention(policy: PipelinePolicy, environment: Environment, name: string): boolean {
  const project = policy.project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${project}-${environment}-[a-z0-9]+(-[a-z0-9]+)*(\\.fifo)?$`).test(name);
}

/**
 * The tags the policy requires, with their values for one request.
 *
 * @example
 * requiredTagValues(DEFAULT_POLICY, "prd", "req-1").Environment; // "prd"
 */
export function requiredTagValues(
  policy: PipelinePolicy,
  environment: Environment,
  requestId: string,
): Record<string, string> {
  const known: Record<string, string> = {
    Environment: environment,
    Project: policy.project,
    Owner: policy.owner,
    ManagedBy: "terraform",
    RequestId: requestId,
  };
  return Object.fromEntries(policy.requiredTags.map((tag) => [tag, known[tag] ?? "unset"]));
}

/**
 * Whether a plan needs a person's approval: always in prd, and for high-impact changes anywhere.
 * Returns the reasons (empty when no approval is needed).
 *
 * @example
 * approvalReasons("prd", "low"); // ["changes in prd always need approval"]
 */
export function approvalReasons(environment: Environment, impact: Impact): string[] {
  const reasons: string[] = [];
  if (environment === "prd") reasons.push("changes in prd always need approval");
  if (impact === "high") reasons.push("high-impact change");
  return reasons;
}
