import { TrellisError } from "./errors.js";
import type { StoreFilter, StoreListNamespacesOptions } from "./store.js";

// The rules every store shares, as pure functions: what a valid namespace, value and filter are, how a
// filter matches, and how namespaces are listed. Backends only store and scan rows.

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]);

function invalid(message: string, details: Record<string, unknown> = {}): TrellisError {
  return new TrellisError("INVALID_ARGUMENT", message, { details });
}

/**
 * Checks a namespace: a list of non-empty strings without `.` (the wire joins labels with it). `what`
 * names it in the error. An empty list is allowed only where `allowEmpty` says (search prefixes).
 *
 * @example
 * checkNamespace(["memories", "ana"], "namespace"); // ok
 * checkNamespace(["a.b"], "namespace"); // throws INVALID_ARGUMENT
 */
export function checkNamespace(namespace: unknown, what: string, allowEmpty = false): asserts namespace is string[] {
  if (!Array.isArray(namespace)) {
    throw invalid(`${what} must be a list of strings, like ["memories", "ana"].`, { [what]: namespace });
  }
  if (namespace.length === 0 && !allowEmpty) {
    throw invalid(`${what} must hold at least one label, like ["memories"].`, { [what]: namespace });
  }
  for (const label of namespace) {
    if (typeof label !== "string" || label === "" || label.includes(".")) {
      throw invalid(
        `${what} labels must be non-empty strings without "." (the API joins labels with "."); got ${JSON.stringify(label)} in ${JSON.stringify(namespace)}: ${labelFix(label)}.`,
        { [what]: namespace },
      );
    }
  }
}

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
}

/** Checks a value: a plain JSON object (not a list, not null). @internal */
export function checkValue(value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(
      `value must be a JSON object, like { "text": "likes tea" }; got ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}. Wrap other values in an object.`,
    );
  }
}

/** Checks a TTL in minutes: a positive number or null. @internal */
export function checkTtl(ttl: unknown): asserts ttl is number | null | undefined {
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0) {
    throw invalid(`ttl is in minutes and must be a positive number (or null for none); got ${JSON.stringify(ttl)}.`);
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
