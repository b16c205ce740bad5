/**
 * Facts about AWS resources read from a {@link TfModule}: effective tags, encryption at rest, public
 * access, physical names. The review's rules and deploy-validate's acceptance checks both use them, so
 * a bucket is "encrypted" in exactly one sense everywhere.
 */
import type { ResourceKind } from "../contracts.js";
import { NAME_ATTRIBUTE } from "../policy.js";
import {
  evaluate,
  resourcesFor,
  type TfModule,
  type TfResource,
  Unknown,
  valueAt,
  valuesAt,
} from "./terraform-module.js";

/**
 * The Terraform type of each resource kind the planner knows.
 *
 * @example
 * TERRAFORM_TYPE.s3_bucket; // "aws_s3_bucket"
 */
export const TERRAFORM_TYPE: Readonly<Record<ResourceKind, string>> = {
  s3_bucket: "aws_s3_bucket",
  sqs_queue: "aws_sqs_queue",
  dynamodb_table: "aws_dynamodb_table",
  sns_topic: "aws_sns_topic",
};

/**
 * The tags a resource ends up with: the aws provider's `default_tags` merged with its own `tags`.
 * `unknown` is true when part of them cannot be read statically.
 *
 * @example
 * effectiveTags(mod, bucket).tags.Environment; // "prd"
 */
export function effectiveTags(
  mod: TfModule,
  resource: TfResource,
): { tags: Record<string, unknown>; unknown: boolean } {
  let unknown = false;
  const tags: Record<string, unknown> = {};
  const add = (value: unknown) => {
    if (value === undefined) return;
    if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Unknown) {
      unknown = true;
      return;
    }
    Object.assign(tags, value);
  };
  for (const provider of mod.providers.filter((p) => p.labels[0] === "aws")) {
    for (const defaults of provider.blocks.filter((b) => b.type === "default_tags")) {
      add(evaluate(mod, defaults.attributes.tags?.value));
    }
  }
  add(evaluate(mod, resource.block.attributes.tags?.value));
  return { tags, unknown };
}

/**
 * How a resource is encrypted at rest. `customerManaged` means a KMS key the organisation controls
 * (an `aws_kms_key` of the module or a key ARN), not an AWS-managed one.
 *
 * @example
 * const enc = encryptionOf(mod, bucket);
 * if (!enc.encrypted) report(enc.evidence);
 */
export interface EncryptionFact {
  encrypted: boolean;
  customerManaged: boolean;
  evidence: string;
  file: string;
  line: number;
}

/**
 * The encryption of an S3 bucket, SQS queue, SNS topic or DynamoDB table; undefined for other types.
 *
 * @example
 * encryptionOf(mod, queue)?.customerManaged; // true with kms_master_key_id = aws_kms_key.orders.arn
 */
export function encryptionOf(mod: TfModule, resource: TfResource): EncryptionFact | undefined {
  const at = { file: resource.file, line: resource.block.line };
  switch (resource.type) {
    case "aws_s3_bucket": {
      const sse = resourcesFor(mod, "aws_s3_bucket_server_side_encryption_configuration", resource.address)[0];
      const block = sse?.block ?? resource.block.blocks.find((b) => b.type === "server_side_encryption_configuration");
      if (!block)
        return { encrypted: false, customerManaged: false, evidence: "no server-side encryption configuration", ...at };
      const path = "rule.apply_server_side_encryption_by_default";
      const algorithm = valueAt(mod, block, `${path}.sse_algorithm`);
      const key = valueAt(mod, block, `${path}.kms_master_key_id`);
      const where = { file: sse?.file ?? resource.file, line: block.line };
      const encrypted =
        algorithm instanceof Unknown || ["AES256", "aws:kms", "aws:kms:dsse"].includes(String(algorithm));
      const kms = typeof algorithm === "string" && algorithm.startsWith("aws:kms");
      return {
        encrypted,
        customerManaged: kms && isCustomerKey(key),
        evidence: `${sse?.address ?? "inline configuration"}: sse_algorithm = ${describe(algorithm)}${key === undefined ? "" : `, kms_master_key_id = ${describe(key)}`}`,
        ...where,
      };
    }
    case "aws_sqs_queue": {
      const managed = valueAt(mod, resource.block, "sqs_managed_sse_enabled");
      const key = valueAt(mod, resource.block, "kms_master_key_id");
      const evidence =
        key !== undefined ? `kms_master_key_id = ${describe(key)}` : `sqs_managed_sse_enabled = ${describe(managed)}`;
      return { encrypted: managed === true || key !== undefined, customerManaged: isCustomerKey(key), evidence, ...at };
    }
    case "aws_sns_topic": {
      const key = valueAt(mod, resource.block, "kms_master_key_id");
      const evidence = key === undefined ? "no kms_master_key_id" : `kms_master_key_id = ${describe(key)}`;
      return { encrypted: key !== undefined, customerManaged: isCustomerKey(key), evidence, ...at };
    }
    case "aws_dynamodb_table": {
      const enabled = valueAt(mod, resource.block, "server_side_encryption.enabled");
      const key = valueAt(mod, resource.block, "server_side_encryption.kms_key_arn");
      return {
        encrypted: true,
        customerManaged: enabled === true && isCustomerKey(key),
        evidence:
          enabled === true
            ? `server_side_encryption enabled${key === undefined ? " (AWS-managed key)" : ` with kms_key_arn = ${describe(key)}`}`
            : "AWS-owned key (DynamoDB default)",
        ...at,
      };
    }
    default:
      return undefined;
  }
}

/** A KMS key the organisation controls: a key of this module, a key ARN, or a non-AWS alias. */
function isCustomerKey(key: unknown): boolean {
  if (key instanceof Unknown) return /\baws_kms_(key|alias)\./.test(key.text);
  if (typeof key !== "string" || key === "") return false;
  return !key.startsWith("alias/aws/");
}

/**
 * What an S3 bucket exposes publicly.
 *
 * @example
 * const pub = publicAccessOf(mod, bucket);
 * pub.block?.disabled; // ["block_public_policy", …]
 */
export interface PublicAccessFact {
  /** The bucket's public access block, or undefined when it has none. */
  block?: { address: string; disabled: string[]; file: string; line: number };
  publicAcl?: { value: string; file: string; line: number };
  publicPolicy?: { address: string; file: string; line: number };
}

const BLOCK_FLAGS = ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"];
const PUBLIC_ACLS = new Set(["public-read", "public-read-write", "authenticated-read"]);

/**
 * The public exposure of an S3 bucket: its public access block, public ACLs and bucket policies.
 *
 * @example
 * publicAccessOf(mod, bucket).publicPolicy?.address; // "aws_s3_bucket_policy.assets"
 */
export function publicAccessOf(mod: TfModule, bucket: TfResource): PublicAccessFact {
  const fact: PublicAccessFact = {};
  const pab = resourcesFor(mod, "aws_s3_bucket_public_access_block", bucket.address)[0];
  if (pab) {
    const disabled = BLOCK_FLAGS.filter((flag) => valueAt(mod, pab.block, flag) !== true);
    fact.block = { address: pab.address, disabled, file: pab.file, line: pab.block.line };
  }
  const acls = [
    { r: bucket, attr: bucket.block.attributes.acl },
    ...resourcesFor(mod, "aws_s3_bucket_acl", bucket.address).map((r) => ({ r, attr: r.block.attributes.acl })),
  ];
  for (const { r, attr } of acls) {
    const value = evaluate(mod, attr?.value);
    if (typeof value === "string" && PUBLIC_ACLS.has(value))
      fact.publicAcl = { value, file: r.file, line: attr?.line ?? 0 };
  }
  for (const policy of resourcesFor(mod, "aws_s3_bucket_policy", bucket.address)) {
    const attr = policy.block.attributes.policy;
    // jsonencode({...}) is judged on its argument: a reference in `Resource` must not hide `Principal = "*"`.
    const value = attr?.value;
    const document =
      value?.kind === "call" && value.name === "jsonencode" ? evaluate(mod, value.args[0]) : evaluate(mod, value);
    if (policyAllowsPublic(document)) {
      fact.publicPolicy = { address: policy.address, file: policy.file, line: attr?.line ?? policy.block.line };
    }
  }
  return fact;
}

/**
 * Whether an IAM policy document (JSON text or object) allows anyone (`Principal: "*"`).
 *
 * @example
 * policyAllowsPublic('{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject"}]}'); // true
 */
export function policyAllowsPublic(document: unknown): boolean {
  let doc = document;
  if (typeof doc === "string") {
    try {
      doc = JSON.parse(doc);
    } catch {
      return false;
    }
  }
  if (typeof doc !== "object" || doc === null) return false;
  const raw = (doc as { Statement?: unknown }).Statement;
  const statements = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return statements.some((s) => {
    if (typeof s !== "object" || s === null) return false;
    const { Effect, Principal } = s as { Effect?: unknown; Principal?: unknown };
    if (Effect !== "Allow") return false;
    if (Principal === "*") return true;
    if (typeof Principal === "object" && Principal !== null) {
      const aws = (Principal as { AWS?: unknown }).AWS;
      return aws === "*" || (Array.isArray(aws) && aws.includes("*"));
    }
    return false;
  });
}

/**
 * A resource's physical name (`bucket`, `name`) and the line it is set on; undefined for types without
 * a name attribute.
 *
 * @example
 * physicalNameOf(mod, bucket)?.value; // "trellis-prd-logs"
 */
export function physicalNameOf(mod: TfModule, resource: TfResource): { value: unknown; line: number } | undefined {
  const attribute = NAME_ATTRIBUTE[resource.type];
  if (!attribute) return undefined;
  return valuesAt(mod, resource.block, attribute)[0] ?? { value: undefined, line: resource.block.line };
}

/**
 * A value as the review shows it.
 *
 * @example
 * describe(new Unknown("aws_kms_key.logs.arn")); // "aws_kms_key.logs.arn"
 */
export function describe(value: unknown): string {
  if (value instanceof Unknown) return value.text;
  if (value === undefined) return "(unset)";
  return typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
}
