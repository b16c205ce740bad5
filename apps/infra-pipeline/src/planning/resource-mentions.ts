/**
 * Finds every resource a request names, each with the verb that governs it and the name or purpose
 * written next to it: "create S3 buckets for logs and backups" is two buckets; "a bucket for logs and an
 * SQS queue for orders" is a bucket `logs` and a queue `orders`; "remove versioning from the bucket
 * trellis-dev-logs" is an update of that bucket (a setting removed, not the resource). Deterministic.
 */
import type { ChangeAction, ResourceKind } from "../contracts.js";

/**
 * One resource a request names.
 *
 * @example
 * const r: RequestedResource = { kind: "s3_bucket", action: "create", purpose: "logs", explicitName: undefined };
 */
export interface RequestedResource {
  kind: ResourceKind;
  action: ChangeAction;
  purpose: string | undefined;
  explicitName: string | undefined;
}

/** A resource name as AWS allows it for buckets, queues, tables and topics (lower-cased here). */
export const NAME = "[a-z0-9][a-z0-9._-]*[a-z0-9]";

const MENTION =
  /\b(?:(s3|sqs|sns|dynamo(?:db)?)\s+(bucket|queue|topic|table)(s?)|(bucket|queue|table|topic)(s?)|(s3|sqs|sns|dynamodb)(?![\w-]))\b/g;

const KIND_OF: Record<string, ResourceKind> = {
  s3: "s3_bucket",
  bucket: "s3_bucket",
  sqs: "sqs_queue",
  queue: "sqs_queue",
  dynamo: "dynamodb_table",
  dynamodb: "dynamodb_table",
  table: "dynamodb_table",
  sns: "sns_topic",
  topic: "sns_topic",
};

/**
 * A setting a request takes away or turns off ("remove versioning", "disable public access", "make …
 * private"): the resource is updated, never deleted.
 */
export const SETTING_OFF =
  /\b(?:remov\w*|delet\w*|disabl\w*|drop\w*|strip\w*|suspend\w*|turn(?:s|ed|ing)?\s+off|stop\w*|revok\w*|block\w*|get\s+rid\s+of|take\s+away)\s+(?:the\s+|all\s+|any\s+)?(versioning|version\s+history|public(?:\s+(?:read\s+)?access|\s+reads?)?|encryption|kms|retention|lifecycle(?:\s+rules?)?|tags?)\b/;
const SETTING_ON =
  /\b(?:enabl\w*|add\w*|turn(?:s|ed|ing)?\s+on|switch(?:es|ed|ing)?\s+on|activat\w*|allow\w*)\s+(?:the\s+)?(versioning|public(?:\s+(?:read\s+)?access)?|encryption|kms|retention|lifecycle)\b/;

/** Verbs by the action they ask for, in the forms people write them. */
const VERBS: Array<[ChangeAction, RegExp]> = [
  [
    "delete",
    /\b(?:delet\w*|remov\w*|destroy\w*|decommission\w*|deprovision\w*|drop\w*|tear(?:s|ing)?\s+down|tore\s+down|torn\s+down|get\s+rid\s+of|retir\w*|nuke\w*|wip\w*\s+out|purg\w*)\b/g,
  ],
  [
    "update",
    /\b(?:updat\w*|modif\w*|chang\w*|enabl\w*|disabl\w*|turn(?:s|ed|ing)?\s+(?:on|off)|configur\w*|reconfigur\w*|adjust\w*|increas\w*|decreas\w*|extend\w*|shorten\w*|upgrad\w*|scal\w*|migrat\w*|suspend\w*|set(?:s|ting)?(?!\s+up)|make\s+(?:the|our|my|it|this|that|bucket|queue|table|topic|trellis-)|switch\w*)\b/g,
  ],
  [
    "create",
    /\b(?:creat\w*|provision\w*|add\w*|set(?:s|ting)?\s+up|spin(?:s|ning)?\s+up|spun\s+up|stand(?:s|ing)?\s+up|stood\s+up|build\w*|launch\w*|deploy\w*|establish\w*|mak\w*|need\w*|want\w*|give\s+me|new)\b/g,
  ],
];

/** Verbs: never a purpose in front of a resource ("delete S3 bucket …"), but fine after "for" ("for deploy alerts"). */
const VERB_WORDS = new Set(
  (
    "create make provision add delete remove destroy decommission drop tear down update modify change enable " +
    "disable set upgrade scale migrate deploy please also up spin stand build launch need want"
  ).split(" "),
);

/** Words that never name a purpose. */
export const STOP_WORDS = new Set(
  (
    "a an the new our my in on at to with and or that which for of s3 sqs sns dynamodb dynamo bucket buckets queue " +
    "queues table tables topic topics public private encrypted versioned fifo kms env environment versioning " +
    "encryption retention days day is be it keyed by named called using as partition hash key this existing old " +
    "another some two three both each one from its their setting settings access " +
    "dev development tst test testing staging prd prod production"
  ).split(" "),
);

const isStop = (w: string) => STOP_WORDS.has(w) || VERB_WORDS.has(w);

const looksLikeName = (w: string | undefined): w is string =>
  w !== undefined && !isStop(w) && /[-._0-9]/.test(w) && new RegExp(`^${NAME}$`).test(w);

interface Mention {
  kind: ResourceKind;
  plural: boolean;
  start: number;
  end: number;
  /** A resource named by its URL or ARN (`s3://trellis-dev-logs`). */
  name?: string;
}

/** Resources named by a URL or an ARN: the kind and the name in one. */
const ADDRESSED: ReadonlyArray<[ResourceKind, RegExp]> = [
  ["s3_bucket", new RegExp(`\\bs3://(${NAME})|\\barn:aws:s3:::(${NAME})`, "g")],
  ["sqs_queue", new RegExp(`\\barn:aws:sqs:[a-z0-9-]*:[0-9]*:(${NAME})`, "g")],
  ["sns_topic", new RegExp(`\\barn:aws:sns:[a-z0-9-]*:[0-9]*:(${NAME})`, "g")],
  ["dynamodb_table", new RegExp(`\\barn:aws:dynamodb:[a-z0-9-]*:[0-9]*:table/(${NAME})`, "g")],
];

function mentionsOf(t: string): Mention[] {
  const out: Mention[] = [];
  for (const m of t.matchAll(MENTION)) {
    const word = m[1] ?? m[4] ?? m[6] ?? "";
    const kind = KIND_OF[word] ?? KIND_OF[m[2] ?? ""];
    if (!kind) continue;
    const start = m.index ?? 0;
    // part of a name ("trellis-dev-orders-queue", "logs-bucket.example"), not a mention
    if (/[-._]/.test(t.charAt(start - 1)) || /^[-._][a-z0-9]/.test(t.slice(start + m[0].length))) continue;
    // "s3://…" and "arn:aws:s3:…" are names, not mentions
    if (/^(?:s3|sqs|sns)$/.test(word) && /^[:/]/.test(t.slice(start + word.length))) continue;
    if (/arn:aws:$/.test(t.slice(Math.max(0, start - 8), start))) continue;
    out.push({ kind, plural: (m[3] ?? m[5] ?? "") === "s", start, end: start + m[0].length });
  }
  for (const [kind, re] of ADDRESSED) {
    for (const m of t.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      // "the bucket s3://x": one resource, named by the URL
      const near = out.findIndex(
        (o) => o.kind === kind && (Math.abs(o.end - start) <= 2 || Math.abs(end - o.start) <= 2),
      );
      const name = m[1] ?? m[2] ?? "";
      if (near >= 0) out.splice(near, 1, { ...(out[near] as Mention), name });
      else out.push({ kind, plural: false, start, end, name });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The purposes written after a mention: "for logs", "for logs and backups" (a plural mention). */
function purposesAfter(segment: string, plural: boolean): string[] {
  const m =
    /^\s*(?:\S+\s+){0,3}?(?:for|to\s+hold|to\s+store|holding|storing)\s+(?:the\s+|our\s+|my\s+)?([a-z0-9 ,-]+)/.exec(
      segment,
    );
  if (!m?.[1]) return [];
  const parts = plural ? m[1].split(/\s*(?:,\s*(?:and\s+)?|\band\b)\s*/) : [m[1]];
  const out: string[] = [];
  for (const part of parts) {
    const picked: string[] = [];
    // "for invoices and for receipts": each part may repeat the "for"
    for (const w of part
      .replace(/^\s*(?:for|the|our|my)\s+/, "")
      .split(/[^a-z0-9-]+/)
      .filter(Boolean)) {
      if (STOP_WORDS.has(w) || /^\d/.test(w)) break;
      picked.push(w);
      if (picked.length === 2) break;
    }
    if (picked.length > 0) out.push(picked.join("-"));
    if (!plural) break;
  }
  return out;
}

/** The name written with a mention: after it ("the bucket trellis-dev-logs"), before it, or "named X". */
function nameNear(before: string, after: string): string | undefined {
  const next = new RegExp(`^\\s+(?:named\\s+|called\\s+)?["'\`]?(${NAME})`).exec(after)?.[1];
  if (looksLikeName(next)) return next;
  const named = new RegExp(`^[^.;]*?\\b(?:named|called)\\s+["'\`]?(${NAME})`).exec(after)?.[1];
  if (named) return named;
  const quoted = new RegExp(`^\\s*(?:\\S+\\s+){0,3}?["'\`](${NAME})["'\`]`).exec(after)?.[1];
  if (quoted && !isStop(quoted)) return quoted;
  const prev = new RegExp(`["'\`]?(${NAME})["'\`]?\\s+(?:s3\\s+|sqs\\s+|sns\\s+|dynamodb\\s+)?$`).exec(before)?.[1];
  if (looksLikeName(prev)) return prev;
  return undefined;
}

/** "the logs bucket", "an orders queue": the word in front of a mention. */
function purposeBefore(before: string): string | undefined {
  const w = /([a-z0-9-]+)\s+(?:s3\s+|sqs\s+|sns\s+|dynamodb\s+)?$/.exec(before)?.[1];
  return w && !isStop(w) && !/^\d/.test(w) ? w : undefined;
}

/** The verb in force at a position: the last one before it, else the first one after it. */
function actionAt(t: string, at: number): ChangeAction {
  let best: { at: number; action: ChangeAction } | undefined;
  let after: { at: number; action: ChangeAction } | undefined;
  const consider = (pos: number, action: ChangeAction) => {
    if (pos < at && (!best || pos > best.at)) best = { at: pos, action };
    if (pos >= at && (!after || pos < after.at)) after = { at: pos, action };
  };
  const settingSpans: Array<[number, number]> = [];
  for (const m of t.matchAll(new RegExp(SETTING_OFF.source, "g"))) {
    consider(m.index ?? 0, "update");
    settingSpans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  for (const m of t.matchAll(new RegExp(SETTING_ON.source, "g"))) {
    consider(m.index ?? 0, "update");
    settingSpans.push([m.index ?? 0, (m.index ?? 0) + m[0].length]);
  }
  for (const [action, re] of VERBS) {
    for (const m of t.matchAll(re)) {
      const pos = m.index ?? 0;
      if (settingSpans.some(([s, e]) => pos >= s && pos < e)) continue;
      consider(pos, action);
    }
  }
  return (best ?? after)?.action ?? "create";
}

/**
 * Every resource the (lower-cased) request names, in order, with its action, name and purpose. A
 * mention without a purpose of its own takes the one of the mention right after it when only "and"
 * stands between them ("a queue and a topic for orders").
 *
 * @example
 * resourcesOf("create s3 buckets for logs and backups").map((r) => r.purpose); // ["logs", "backups"]
 */
export function resourcesOf(t: string): RequestedResource[] {
  const mentions = mentionsOf(t);
  const found: Array<RequestedResource & { joinsNext: boolean }> = [];
  mentions.forEach((m, i) => {
    const next = mentions[i + 1];
    const after = t.slice(m.end, next?.start ?? t.length);
    const before = t.slice(mentions[i - 1]?.end ?? 0, m.start);
    const action = actionAt(t, m.start);
    const explicitName = m.name ?? nameNear(before, t.slice(m.end));
    const joinsNext = next !== undefined && /^\s*(?:and|&|,)\s*(?:an?\s+|the\s+)?$/.test(after);
    const purposes = explicitName ? [] : purposesAfter(after, m.plural);
    const own = purposes.length > 0 ? purposes : [purposeBefore(before)];
    for (const purpose of own) found.push({ kind: m.kind, action, purpose, explicitName, joinsNext });
  });
  // "a queue and a topic for orders": the first takes the purpose written after the second
  for (let i = found.length - 2; i >= 0; i -= 1) {
    const r = found[i];
    const next = found[i + 1];
    if (r && next && r.joinsNext && !r.purpose && !r.explicitName) r.purpose = next.purpose;
  }
  return found.map(({ joinsNext: _j, ...r }) => r);
}
