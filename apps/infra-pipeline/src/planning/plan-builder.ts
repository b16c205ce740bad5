/**
 * Turns a parsed request into a plan: the resources with their names and labels, requirements (what
 * the user asked plus what policy demands), machine-checkable acceptance criteria, an impact rating, a
 * rough cost estimate and the approval decision.
 */
import type {
  AcceptanceCriterion,
  CriterionCheck,
  Environment,
  Impact,
  PlanningOutput,
  Requirement,
  ResourceKind,
  ResourceSpec,
} from "../contracts.js";
import { approvalReasons, followsNamingConvention, type PipelinePolicy, physicalName } from "../policy.js";
import { TERRAFORM_TYPE } from "../terraform/aws-facts.js";
import { type ParsedRequest, parseRequest } from "./request-parser.js";
import type { RequestedResource } from "./resource-mentions.js";

const KIND_LABEL: Record<ResourceKind, string> = {
  s3_bucket: "S3 bucket",
  sqs_queue: "SQS queue",
  dynamodb_table: "DynamoDB table",
  sns_topic: "SNS topic",
};

/**
 * The question to ask when a request names a resource type but neither a name nor a purpose the name
 * could follow from ("delete the S3 bucket", "create a queue"): the planner asks instead of inventing
 * a name — an invented name is how "delete the S3 bucket trellis-dev-logs" once became a plan to
 * delete `trellis-dev-data`. Undefined when every resource can be named.
 *
 * @example
 * missingNameQuestion("delete the S3 bucket", "dev", DEFAULT_POLICY);
 * // 'Which S3 bucket should I delete? Name it — for example "delete the S3 bucket trellis-dev-<purpose>" — …'
 */
export function missingNameQuestion(
  request: string,
  environment: Environment,
  policy: PipelinePolicy,
): string | undefined {
  const parsed = parseRequest(request);
  const unnamed = parsed.resources.filter((r) => !r.explicitName && !r.purpose);
  const first = unnamed[0];
  if (!first) return undefined;
  const what = [...new Set(unnamed.map((r) => KIND_LABEL[r.kind]))].join(" and ");
  const example = `${first.action} the ${KIND_LABEL[first.kind]} ${policy.project}-${environment}-<purpose>`;
  return `Which ${what} should I ${first.action}? The request names none, and I will not guess one. Name it — for example "${example}" — or say what it is for ("… for logs"), and send the request again.`;
}

/**
 * The question to ask when a request creates a resource under a name that breaks the naming policy
 * ("create a bucket named my-logs"): the review would refuse it on every retry, so the planner asks
 * first. Updates and deletes act on what exists and keep its name. Undefined when every name is fine.
 *
 * @example
 * namingQuestion("create a bucket named my-logs", "dev", DEFAULT_POLICY);
 * // 'The name "my-logs" breaks the naming policy: dev names follow trellis-dev-<purpose>. …'
 */
export function namingQuestion(request: string, environment: Environment, policy: PipelinePolicy): string | undefined {
  const bad = parseRequest(request).resources.find(
    (r) => r.action === "create" && r.explicitName && !followsNamingConvention(policy, environment, r.explicitName),
  );
  if (!bad?.explicitName) return undefined;
  const expected = `${policy.project}-${environment}-<purpose>`;
  return `The name "${bad.explicitName}" breaks the naming policy: ${environment} names follow ${expected}. Should I use ${physicalName(policy, environment, bad.explicitName.replace(new RegExp(`^${policy.project}-(?:dev|tst|prd)-`), ""))}? Send the request again with that name (or say what the ${KIND_LABEL[bad.kind]} is for).`;
}

/** Light-use monthly cost in USD, for display. */
const MONTHLY_COST: Record<ResourceKind, number> = {
  s3_bucket: 2.3,
  sqs_queue: 0.4,
  dynamodb_table: 1.25,
  sns_topic: 0.5,
};

/**
 * Inputs of {@link buildPlan}.
 *
 * @example
 * buildPlan({ request: "create an S3 bucket for logs", environment: "dev", requestId: "req-1", policy });
 */
export interface BuildPlanInput {
  request: string;
  environment: Environment;
  requestId: string;
  policy: PipelinePolicy;
}

/**
 * The offline planner.
 *
 * @example
 * const plan = buildPlan({ request: "create an S3 bucket for logs in prd with versioning", environment: "prd",
 *   requestId: "req-1", policy: DEFAULT_POLICY });
 * plan.requires_approval; // true
 */
export function buildPlan(input: BuildPlanInput): PlanningOutput {
  const parsed = parseRequest(input.request);
  const resources = dedupe(parsed.resources.map((r) => resourceOf(r, parsed, input)));
  const requirements: Requirement[] = [];
  const criteria: AcceptanceCriterion[] = [];
  const require = (description: string, source: Requirement["source"]) =>
    requirements.push({ id: `REQ-${requirements.length + 1}`, description, source });
  const accept = (description: string, check: CriterionCheck) =>
    criteria.push({ id: `AC-${criteria.length + 1}`, description, check });

  for (const r of resources) describeResource(r, input.environment, require, accept);
  const creating = resources.filter((r) => r.action !== "delete");
  if (creating.length > 0) {
    const tags = [...input.policy.requiredTags];
    require(`Tag every resource with ${tags.join(", ")}.`, "policy");
    require(`Name resources ${input.policy.project}-${input.environment}-<purpose>.`, "policy");
    accept(`Every taggable resource carries ${tags.join(", ")}.`, { type: "tags_present", keys: tags });
  }
  if (resources.length === 0) {
    require(`Implement: ${input.request.trim()}`, "request");
  }

  const { impact, reasons } = impactOf(parsed, resources, input.environment);
  const approval = approvalReasons(input.environment, impact);
  return {
    request_id: input.requestId,
    request: input.request,
    environment: input.environment,
    summary: summaryOf(resources, input.environment),
    resources,
    requirements,
    acceptance_criteria: criteria,
    cost_estimate: costOf(resources),
    impact,
    impact_reasons: reasons,
    requires_approval: approval.length > 0,
    approval_reasons: approval,
    generated_by: "offline",
  };
}

/** The same resource named twice ("the logs bucket … the logs bucket") is planned once. */
function dedupe(resources: ResourceSpec[]): ResourceSpec[] {
  const seen = new Set<string>();
  return resources.filter((r) => {
    const key = `${r.kind}:${r.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function resourceOf(requested: RequestedResource, parsed: ParsedRequest, input: BuildPlanInput): ResourceSpec {
  const { kind } = requested;
  const prefix = `${input.policy.project}-${input.environment}-`;
  let purpose = requested.purpose;
  // a full name written where a purpose stands ("the trellis-dev-logs bucket"): the name, never prefixed twice
  const explicit = requested.explicitName ?? (purpose?.startsWith(`${input.policy.project}-`) ? purpose : undefined);
  let name: string;
  if (explicit) {
    name = explicit;
    purpose = name.startsWith(prefix) ? name.slice(prefix.length) : name;
  } else if (purpose) {
    name = physicalName(input.policy, input.environment, purpose);
  } else {
    // never invent a name: the orchestrator asks first (missingNameQuestion)
    throw new Error(
      missingNameQuestion(input.request, input.environment, input.policy) ??
        `The request names no ${KIND_LABEL[kind]}.`,
    );
  }
  const features: ResourceSpec["features"] = {};
  const f = parsed.features;
  if (kind === "s3_bucket") {
    // false is a setting taken away ("remove versioning", "remove the public access"): an update that changes it
    if (f.versioning !== undefined) features.versioning = f.versioning;
    if (f.public !== undefined) features.public = f.public;
  }
  if (f.kms) features.kms = true;
  if (f.retention_days !== undefined && (kind === "s3_bucket" || kind === "sqs_queue")) {
    features.retention_days = kind === "sqs_queue" ? Math.min(f.retention_days, 14) : f.retention_days;
  }
  if (f.fifo && (kind === "sqs_queue" || kind === "sns_topic")) {
    features.fifo = true;
    if (!name.endsWith(".fifo")) name = `${name}.fifo`;
  }
  if (kind === "dynamodb_table") features.hash_key = f.hash_key ?? "id";
  const label =
    purpose
      .replace(/\.fifo$/, "")
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "") || "main";
  return {
    kind,
    action: requested.action,
    label: /^[a-z]/.test(label) ? label : `r_${label}`,
    name,
    purpose,
    features,
  };
}

function describeResource(
  r: ResourceSpec,
  environment: Environment,
  require: (description: string, source: Requirement["source"]) => void,
  accept: (description: string, check: CriterionCheck) => void,
): void {
  const type = TERRAFORM_TYPE[r.kind];
  const address = `${type}.${r.label}`;
  const what = `${KIND_LABEL[r.kind]} "${r.name}"`;
  if (r.action === "delete") {
    require(`Delete ${what} (${address}) from ${environment}.`, "request");
    accept(`${address} is removed and destroyed.`, { type: "resource_removed", address });
    return;
  }
  require(`${r.action === "create" ? "Create" : "Update"} ${what} for ${r.purpose} in ${environment}.`, "request");
  accept(`${what} is declared.`, { type: "resource_exists", resource_type: type, name: r.name });
  const f = r.features;
  if (f.versioning) {
    require(`Enable versioning on ${what}.`, "request");
    accept(`Versioning is enabled on ${what}.`, {
      type: "attributes",
      resource_type: "aws_s3_bucket_versioning",
      subject: address,
      expect: { "versioning_configuration.status": "Enabled" },
    });
  }
  if (f.versioning === false) {
    require(`Suspend versioning on ${what} (existing object versions are kept).`, "request");
    accept(`Versioning is suspended on ${what}.`, {
      type: "attributes",
      resource_type: "aws_s3_bucket_versioning",
      subject: address,
      expect: { "versioning_configuration.status": "Suspended" },
    });
  }
  if (f.retention_days !== undefined) {
    require(`Keep data for ${f.retention_days} days, then expire it.`, "request");
    accept(
      `Data expires after ${f.retention_days} days.`,
      r.kind === "s3_bucket"
        ? {
            type: "attributes",
            resource_type: "aws_s3_bucket_lifecycle_configuration",
            subject: address,
            expect: { "rule.expiration.days": f.retention_days },
          }
        : {
            type: "attributes",
            resource_type: type,
            subject: address,
            expect: { message_retention_seconds: f.retention_days * 86_400 },
          },
    );
  }
  if (f.fifo) {
    require(`Make ${what} FIFO (ordered, exactly-once).`, "request");
    const attribute = r.kind === "sqs_queue" ? "fifo_queue" : "fifo_topic";
    accept(`${what} is FIFO.`, {
      type: "attributes",
      resource_type: type,
      subject: address,
      expect: { [attribute]: true },
    });
  }
  if (f.hash_key !== undefined) {
    require(`Use "${f.hash_key}" as the partition key.`, "request");
    accept(`The partition key is "${f.hash_key}".`, {
      type: "attributes",
      resource_type: type,
      subject: address,
      expect: { hash_key: f.hash_key },
    });
  }
  if (f.kms) require(`Encrypt ${what} with a customer-managed KMS key that rotates.`, "request");
  else require(`Encrypt ${what} at rest.`, "policy");
  accept(`${what} is encrypted at rest.`, { type: "encrypted_at_rest", subject: address });
  if (r.kind === "s3_bucket") {
    if (f.public) {
      require(`Allow public read access to the objects of ${what}.`, "request");
      accept(`${what} is readable publicly.`, {
        type: "attributes",
        resource_type: "aws_s3_bucket_public_access_block",
        subject: address,
        expect: { block_public_policy: false, restrict_public_buckets: false },
      });
    } else {
      require(`Block all public access to ${what}.`, "policy");
      accept(`Public access to ${what} is blocked.`, { type: "public_access_blocked", subject: address });
    }
  }
}

function impactOf(
  parsed: ParsedRequest,
  resources: ResourceSpec[],
  environment: Environment,
): { impact: Impact; reasons: string[] } {
  const high: string[] = [];
  const medium: string[] = [];
  if (resources.some((r) => r.action === "delete")) high.push("deletes infrastructure");
  if (resources.some((r) => r.features.public)) high.push("makes data public");
  if (parsed.riskyWords.includes("migrate")) high.push("migrates infrastructure");
  if (parsed.mentionedEnvironment && parsed.mentionedEnvironment !== environment) {
    high.push(`the request mentions ${parsed.mentionedEnvironment} but the pipeline targets ${environment}`);
  }
  if (resources.length > 3) high.push(`changes ${resources.length} resources`);
  if (resources.some((r) => r.action === "update")) medium.push("modifies existing infrastructure");
  if (resources.length === 0) medium.push("no supported resource recognised");
  if (high.length > 0) return { impact: "high", reasons: high };
  if (medium.length > 0) return { impact: "medium", reasons: medium };
  return { impact: "low", reasons: [`creates ${resources.length} new resource${resources.length === 1 ? "" : "s"}`] };
}

function summaryOf(resources: ResourceSpec[], environment: Environment): string {
  if (resources.length === 0) {
    return "Could not identify a supported resource in the request (supported offline: S3 bucket, SQS queue, DynamoDB table, SNS topic).";
  }
  const parts = resources.map((r) => {
    const extras = Object.entries(r.features)
      .filter(([k, v]) => v !== undefined && k !== "hash_key" && (v !== false || k === "versioning" || k === "public"))
      .map(([k, v]) =>
        v === false
          ? k === "versioning"
            ? "versioning suspended"
            : "public access blocked"
          : v === true
            ? k
            : `${k} ${v}`,
      );
    const verb = r.action === "create" ? "Create" : r.action === "update" ? "Update" : "Delete";
    return `${verb} ${KIND_LABEL[r.kind]} ${r.name}${extras.length ? ` (${extras.join(", ")})` : ""}`;
  });
  return `${parts.join("; ")} in ${environment}.`;
}

function costOf(resources: ResourceSpec[]): string {
  if (resources.length === 0) return "unknown";
  let total = 0;
  const parts: string[] = [];
  for (const r of resources) {
    let cost = MONTHLY_COST[r.kind];
    if (r.features.versioning) cost *= 1.5;
    if (r.features.kms) cost += 1;
    if (r.action === "delete") cost = -cost;
    total += cost;
    parts.push(`${KIND_LABEL[r.kind]} ${cost < 0 ? "-" : ""}$${Math.abs(cost).toFixed(2)}`);
  }
  const sign = total < 0 ? "-" : "";
  return `≈ ${sign}$${Math.abs(total).toFixed(2)}/month at light usage (${parts.join(", ")}; excludes data transfer)`;
}
