/**
 * Reads an infrastructure request in plain English — "create an S3 bucket for logs in prd with
 * versioning" — into the resources it names and the features it asks for. Deterministic: the offline
 * Planning Agent's understanding of language.
 */
import type { ChangeAction, Environment, ResourceKind, ResourceSpec } from "../contracts.js";
import { type RequestedResource, resourcesOf, SETTING_OFF } from "./resource-mentions.js";

/**
 * What a request says.
 *
 * @example
 * parseRequest("create an S3 bucket for logs in prd with versioning");
 * // { action: "create", kinds: ["s3_bucket"], purpose: "logs", features: { versioning: true }, mentionedEnvironment: "prd" }
 */
export interface ParsedRequest {
  /** The action of the first resource (or of the request when it names none). */
  action: ChangeAction;
  /** Every resource named, in order, each with its own action, name and purpose. */
  resources: RequestedResource[];
  kinds: ResourceKind[];
  purpose: string | undefined;
  explicitName: string | undefined;
  features: ResourceSpec["features"];
  mentionedEnvironment: Environment | undefined;
  /** Words that make a change risky (migrate, destroy…), as found. */
  riskyWords: string[];
}

const ENV_WORDS: Record<string, Environment> = {
  dev: "dev",
  development: "dev",
  tst: "tst",
  test: "tst",
  testing: "tst",
  staging: "tst",
  prd: "prd",
  prod: "prd",
  production: "prd",
};

/** Words that never name a purpose. */
const STOP = new Set([
  "a",
  "an",
  "the",
  "new",
  "our",
  "my",
  "in",
  "on",
  "at",
  "to",
  "with",
  "and",
  "or",
  "that",
  "which",
  "for",
  "of",
  "s3",
  "sqs",
  "sns",
  "dynamodb",
  "dynamo",
  "bucket",
  "buckets",
  "queue",
  "queues",
  "table",
  "tables",
  "topic",
  "topics",
  "public",
  "private",
  "encrypted",
  "versioned",
  "fifo",
  "kms",
  "env",
  "environment",
  "versioning",
  "encryption",
  "retention",
  "days",
  "day",
  "is",
  "be",
  "it",
  "keyed",
  "by",
  "named",
  "called",
  "using",
  "as",
  "partition",
  "hash",
  "key",
  // verbs: "delete S3 bucket …" must not make "delete" the bucket's purpose
  "create",
  "make",
  "provision",
  "add",
  "delete",
  "remove",
  "destroy",
  "decommission",
  "drop",
  "tear",
  "down",
  "update",
  "modify",
  "change",
  "enable",
  "disable",
  "set",
  "upgrade",
  "scale",
  "migrate",
  "deploy",
  "this",
  "existing",
  "old",
  ...Object.keys(ENV_WORDS),
]);

/** A resource name as AWS allows it for buckets, queues, tables and topics (lower-cased here). */
const NAME = "[a-z0-9][a-z0-9._-]*[a-z0-9]";
const KIND_WORD =
  "(?:s3\\s+bucket|bucket|sqs\\s+queue|queue|dynamodb\\s+table|dynamo\\s+table|table|sns\\s+topic|topic)";

/**
 * The name a request gives its resource, as a person writes it: after "named"/"called", in quotes or
 * backticks, as an `s3://` URL or ARN, or right after the resource type ("the S3 bucket
 * trellis-dev-logs") when it looks like a name (it has a `-`, `.`, `_` or digit, and is no plain word).
 *
 * @example
 * explicitNameOf('delete s3 bucket "trellis-dev-logs"'); // "trellis-dev-logs"
 * explicitNameOf("delete the s3 bucket trellis-dev-logs in dev"); // "trellis-dev-logs"
 */
export function explicitNameOf(t: string): string | undefined {
  const looksLikeName = (w: string | undefined) =>
    w !== undefined && !STOP.has(w) && /[-._0-9]/.test(w) && new RegExp(`^${NAME}$`).test(w);
  const named = new RegExp(`\\b(?:named|called)\\s+["'\`]?(${NAME})`).exec(t)?.[1];
  if (named) return named;
  const url = new RegExp(`\\b(?:s3://|arn:aws:[a-z0-9-]+:[a-z0-9-]*:[0-9]*:(?:table/)?)(${NAME})`).exec(t)?.[1];
  if (url) return url;
  for (const m of t.matchAll(new RegExp(`["'\`](${NAME})["'\`]`, "g"))) {
    if (!STOP.has(m[1] as string)) return m[1];
  }
  const after = new RegExp(`\\b${KIND_WORD}\\s+(${NAME})`, "g");
  for (const m of t.matchAll(after)) if (looksLikeName(m[1])) return m[1];
  return undefined;
}

/**
 * Parses a request.
 *
 * @example
 * parseRequest("delete the logs bucket in dev").action; // "delete"
 */
export function parseRequest(text: string): ParsedRequest {
  const t = text.toLowerCase().replace(/[“”]/g, '"');
  const resources = resourcesOf(t);
  const riskyWords = [...t.matchAll(/\b(delete|remove|destroy|decommission|migrate|drop|public(ly)?)\b/g)].map(
    (m) => m[1] as string,
  );
  const first = resources[0];
  return {
    action: first?.action ?? actionOf(t),
    resources,
    kinds: resources.map((r) => r.kind),
    purpose: first?.purpose,
    explicitName: first?.explicitName ?? explicitNameOf(t),
    features: featuresOf(t),
    mentionedEnvironment: environmentOf(t),
    riskyWords: [...new Set(riskyWords.map((w) => (w === "publicly" ? "public" : w)))],
  };
}

function actionOf(t: string): ChangeAction {
  if (SETTING_OFF.test(t)) return "update";
  if (/\b(delet\w*|remov\w*|destroy\w*|decommission\w*|drop\w*|tear(ing)? down|get rid of)\b/.test(t)) return "delete";
  if (/\b(updat\w*|modif\w*|chang\w*|enabl\w*|disabl\w*|upgrad\w*|scal\w*|migrat\w*)\b/.test(t)) return "update";
  return "create";
}

function featuresOf(t: string): ResourceSpec["features"] {
  const features: ResourceSpec["features"] = {};
  const off = new RegExp(SETTING_OFF.source, "g");
  const removed = [...t.matchAll(off)].map((m) => m[1] ?? "");
  if (removed.some((s) => s.startsWith("version"))) features.versioning = false;
  else if (/\bversion(ing|ed)\b/.test(t) && !/\b(no|without|disable)\s+versioning\b/.test(t))
    features.versioning = true;
  if (/\bkms\b|\bcmk\b|customer[- ]managed key/.test(t)) features.kms = true;
  const notPublic = /\b(not|no|non|never|block(ing)?)[- ](be\s+)?public\b|\bprivate\b/.test(t);
  if (removed.some((s) => s.startsWith("public")) || /\bmake\b[^.]*\bprivate\b/.test(t)) features.public = false;
  else if (/\bpublic(ly)?\b/.test(t) && !notPublic) features.public = true;
  if (/\bfifo\b/.test(t)) features.fifo = true;
  const retention = /\b(\d{1,4})[- ]?(days?|d|weeks?|months?|years?)\b/.exec(t);
  if (retention?.[1] && retention[2]) {
    const n = Number(retention[1]);
    const unit = retention[2];
    const days = unit.startsWith("w") ? n * 7 : unit.startsWith("m") ? n * 30 : unit.startsWith("y") ? n * 365 : n;
    if (days > 0) features.retention_days = days;
  }
  const key =
    /\b(?:partition|hash)\s+key\s+(?:of\s+|named\s+)?["']?([a-z_][a-z0-9_]*)/.exec(t) ??
    /\bkeyed\s+(?:by|on)\s+["']?([a-z_][a-z0-9_]*)/.exec(t);
  if (key?.[1]) features.hash_key = key[1];
  return features;
}

function environmentOf(t: string): Environment | undefined {
  const words = "dev|development|tst|test|testing|staging|prd|prod|production";
  // "in test", "to production", "the test environment" — but not "for test data".
  const named =
    new RegExp(`\\b(?:in|to|on|into)\\s+(?:the\\s+)?(${words})\\b`).exec(t) ??
    new RegExp(`\\b(${words})\\s+env(?:ironment)?\\b`).exec(t);
  if (named?.[1]) return ENV_WORDS[named[1]];
  const bare = /\b(dev|tst|prd|prod|production|staging)\b/.exec(t);
  return bare?.[1] ? ENV_WORDS[bare[1]] : undefined;
}
