import { TrellisError } from "./errors.js";
import type { StoreFilter, StoreListNamespacesOptions } from "./store.js";

// The rules every store shares, as pure functions: what a valid namespace, value and filter are, how a
// filter matches, and how namespaces are listed. Backends only store and scan rows.

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);

/**
 * The bounds every store holds its input to, so that what a database cannot take (a key past its
 * index's row size, a TTL past a 64-bit millisecond time, a filter of thousands of conditions, a NUL
 * character Postgres text refuses) is an INVALID_ARGUMENT naming what to change, on every backend alike.
 *
 * @example
 * STORE_BOUNDS.filterKeys; // 100
 */
export const STORE_BOUNDS = {
  /** Bytes (UTF-8) of a namespace, its labels joined with ".". */
  namespaceBytes: 1024,
  /** Labels of a namespace. */
  namespaceLabels: 64,
  /** Bytes (UTF-8) of a key. */
  keyBytes: 1024,
  /** Fields of one filter. */
  filterKeys: 100,
  /** Minutes of a TTL: 1,000 years. */
  ttlMinutes: 525_600_000,
} as const;

function invalid(message: string, details: Record<string, unknown> = {}): TrellisError {
  return new TrellisError("INVALID_ARGUMENT", message, { details });
}

/**
 * Checks a namespace: a list of non-empty strings without `.` (the wire joins labels with it) or NUL,
 * within `room` (default {@link STORE_BOUNDS}: 64 labels, 1,024 bytes joined). `what` names it in the
 * error. An empty list is allowed only where `allowEmpty` says (search prefixes).
 *
 * @example
 * checkNamespace(["memories", "ana"], "namespace"); // ok
 * checkNamespace(["a.b"], "namespace"); // throws INVALID_ARGUMENT
 */
export function checkNamespace(
  namespace: unknown,
  what: string,
  allowEmpty = false,
  room: { labels: number; bytes: number } = {
    labels: STORE_BOUNDS.namespaceLabels,
    bytes: STORE_BOUNDS.namespaceBytes,
  },
): asserts namespace is string[] {
  if (!Array.isArray(namespace)) {
    throw invalid(`${what} must be a list of strings, like ["memories", "ana"].`, { [what]: namespace });
  }
  if (namespace.length === 0 && !allowEmpty) {
    throw invalid(`${what} must hold at least one label, like ["memories"].`, { [what]: namespace });
  }
  if (namespace.length > room.labels) {
    throw invalid(`${what} has ${namespace.length} labels; use at most ${room.labels}.`);
  }
  for (const label of namespace) {
    if (typeof label === "string" && label.includes("\u0000")) {
      throw invalid(
        `${what} labels may not hold the NUL character (\\u0000): remove it from ${JSON.stringify(label)}.`,
      );
    }
    if (typeof label !== "string" || label === "" || label.includes(".")) {
      throw invalid(
        `${what} labels must be non-empty strings without "." (the API joins labels with "."); got ${JSON.stringify(label)} in ${JSON.stringify(namespace)}: ${labelFix(label)}.`,
        { [what]: namespace },
      );
    }
  }
  const bytes = utf8Bytes(namespace.join("."));
  if (bytes > room.bytes) {
    throw invalid(`${what} is ${bytes} bytes long (its labels joined with "."); keep it to ${room.bytes} bytes.`);
  }
}

const encoder = new TextEncoder();
const utf8Bytes = (s: string): number => encoder.encode(s).length;

function labelFix(label: unknown): string {
  if (typeof label !== "string") return "use strings";
  if (label === "") return "drop the empty label";
  return `split it into labels (${JSON.stringify(label.split("."))}) or use another separator`;
}

/** Checks an item key: a non-empty string. @internal */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key === "") {
    throw invalid(`key must be a non-empty string; got ${JSON.stringify(key)}.`);
  }
  if (key.includes("\u0000")) throw invalid("key may not hold the NUL character (\\u0000): remove it.");
  const bytes = utf8Bytes(key);
  if (bytes > STORE_BOUNDS.keyBytes) {
    throw invalid(
      `key is ${bytes} bytes long; keep it to ${STORE_BOUNDS.keyBytes} bytes (a hash of a longer name, say).`,
    );
  }
}

/** Checks a value: a plain JSON object (not a list, not null). @internal */
export function checkValue(value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(
      `value must be a JSON object, like { "text": "likes tea" }; got ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}. Wrap other values in an object.`,
    );
  }
  const at = nulAt(value, "value");
  if (at) throw invalid(`value holds the NUL character (\\u0000) at ${at}: remove it, or encode binary data (base64).`);
}

/**
 * Where the first NUL character (U+0000) of a JSON value is, in a key or a string (`value.notes[2]`),
 * or undefined. Postgres text and jsonb cannot hold it, so no store takes it; a server checks a
 * request body with it before anything reaches SQL.
 *
 * @example
 * nulAt({ notes: ["ok", "a\u0000b"] }, "value"); // "value.notes[1]"
 */
export function nulAt(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nulAt(value[i], `${path}[${i}]`);
      if (at) return at;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k.includes("\u0000")) return `${path} (a key)`;
    const at = nulAt(v, `${path}.${k}`);
    if (at) return at;
  }
  return undefined;
}

/** Checks a TTL in minutes: a positive number or null. @internal */
export function checkTtl(ttl: unknown): asserts ttl is number | null | undefined {
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0 || ttl > STORE_BOUNDS.ttlMinutes) {
    throw invalid(
      `ttl is in minutes and must be a positive number up to ${STORE_BOUNDS.ttlMinutes} (1,000 years), or null for none; got ${JSON.stringify(ttl)}.`,
    );
  }
}

/** Checks a limit or offset: a whole number in range. @internal */
export function checkCount(n: unknown, what: string, min: number): asserts n is number | undefined {
  if (n === undefined) return;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min) {
    throw invalid(`${what} must be a whole number of at least ${min}; got ${JSON.stringify(n)}.`);
  }
}

/**
 * Checks a filter before it is used, so a typo in an operator is an error, not an empty result.
 *
 * @example
 * checkFilter({ stars: { $gte: 4 } }); // ok
 * checkFilter({ stars: { $gtx: 4 } }); // throws INVALID_ARGUMENT naming $gtx
 */
export function checkFilter(filter: unknown): asserts filter is StoreFilter | undefined {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== "object" || Array.isArray(filter)) {
    throw invalid(`filter must be an object of field → value (or operator object, like { "$gt": 3 }).`);
  }
  const fields = Object.keys(filter).length;
  if (fields > STORE_BOUNDS.filterKeys) {
    throw invalid(
      `filter has ${fields} fields; use at most ${STORE_BOUNDS.filterKeys} (narrow by namespace, or search in steps).`,
    );
  }
  const at = nulAt(filter, "filter");
  if (at) throw invalid(`filter holds the NUL character (\\u0000) at ${at}: no stored item can hold one; remove it.`);
  for (const [field, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) continue;
    for (const op of Object.keys(condition)) {
      if (!OPERATORS.has(op)) {
        throw invalid(
          `filter on "${field}" uses the unknown operator "${op}": use one of ${[...OPERATORS].join(", ")}, or a plain value for equality.`,
          { field, operator: op },
        );
      }
    }
  }
}

function isOperatorObject(condition: unknown): condition is Record<string, unknown> {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) return false;
  const keys = Object.keys(condition);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}

/**
 * Whether `value` matches a (checked) filter: every field equal, or satisfying its operators.
 * Comparisons (`$gt`…) hold only between two numbers or two strings.
 *
 * @example
 * matchesStoreFilter({ stars: 5, kind: "tip" }, { kind: "tip", stars: { $gt: 3 } }); // true
 */
export function matchesStoreFilter(value: Record<string, unknown>, filter: StoreFilter | undefined): boolean {
  if (!filter) return true;
  for (const [field, condition] of Object.entries(filter)) {
    const actual = Object.hasOwn(value, field) ? value[field] : undefined;
    if (isOperatorObject(condition)) {
      for (const [op, expected] of Object.entries(condition)) if (!compare(op, actual, expected)) return false;
    } else if (!deepEqual(actual, condition)) {
      return false;
    }
  }
  return true;
}

function compare(op: string, actual: unknown, expected: unknown): boolean {
  if (op === "$eq") return deepEqual(actual, expected);
  if (op === "$ne") return !deepEqual(actual, expected);
  const comparable =
    (typeof actual === "number" && typeof expected === "number") ||
    (typeof actual === "string" && typeof expected === "string");
  if (!comparable) return false;
  const a = actual as number | string;
  const b = expected as number | string;
  if (op === "$gt") return a > b;
  if (op === "$gte") return a >= b;
  if (op === "$lt") return a < b;
  return a <= b; // $lte
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}

/**
 * `["a", "b"]` → `"a.b"`: how namespaces are stored (labels hold no `.`). Public: store backends in other packages use it.
 *
 * @example
 * joinNamespace(["memories", "ana"]); // "memories.ana"
 */
export function joinNamespace(namespace: readonly string[]): string {
  return namespace.join(".");
}

/**
 * `"a.b"` → `["a", "b"]`. Public: store backends in other packages use it.
 *
 * @example
 * splitStoredNamespace("memories.ana"); // ["memories", "ana"]
 * splitStoredNamespace(""); // []
 */
export function splitStoredNamespace(stored: string): string[] {
  return stored === "" ? [] : stored.split(".");
}

/**
 * Whether the stored namespace `ns` is `prefix` or lies under it (label by label, so `["a","b"]` is not
 * under `["a","bc"]`). Public: store backends in other packages use it.
 *
 * @example
 * underPrefix("memories.ana", "memories"); // true
 * underPrefix("memories.anastasia", "memories.ana"); // false
 */
export function underPrefix(ns: string, prefix: string): boolean {
  return prefix === "" || ns === prefix || ns.startsWith(`${prefix}.`);
}

function labelsMatch(labels: readonly string[], pattern: readonly string[]): boolean {
  return pattern.every((p, i) => p === "*" || p === labels[i]);
}

/**
 * Applies LangGraph's `listNamespaces` rules to every namespace that holds items: keep those matching
 * `prefix` and `suffix` (`"*"` matches any label), cut to `maxDepth`, drop duplicates, sort, page.
 *
 * @example
 * listNamespacesOf([["a","b","c"], ["a","d"]], { prefix: ["a"], maxDepth: 2 }); // [["a","b"], ["a","d"]]
 */
export function listNamespacesOf(
  namespaces: Iterable<readonly string[]>,
  options: StoreListNamespacesOptions = {},
): string[][] {
  const { prefix, suffix, maxDepth } = options;
  if (prefix !== undefined) checkPattern(prefix, "prefix");
  if (suffix !== undefined) checkPattern(suffix, "suffix");
  checkCount(maxDepth, "maxDepth", 1);
  checkCount(options.limit, "limit", 0);
  checkCount(options.offset, "offset", 0);
  const seen = new Map<string, string[]>();
  for (const ns of namespaces) {
    if (prefix && (ns.length < prefix.length || !labelsMatch(ns, prefix))) continue;
    if (suffix && (ns.length < suffix.length || !labelsMatch(ns.slice(ns.length - suffix.length), suffix))) continue;
    const cut = maxDepth !== undefined ? ns.slice(0, maxDepth) : [...ns];
    seen.set(cut.join("\u0000"), cut);
  }
  const sorted = [...seen.values()].sort(compareNamespaces);
  const offset = options.offset ?? 0;
  return sorted.slice(offset, offset + (options.limit ?? 100));
}

function checkPattern(pattern: unknown, what: string): void {
  checkNamespace(pattern, what, true);
}

function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
