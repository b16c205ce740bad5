/**
 * Deepest nesting accepted in state values; deeper data is rejected rather than risking the stack.
 *
 * @example
 * let deep: unknown = 0;
 * for (let i = 0; i <= MAX_PLAIN_DATA_DEPTH; i++) deep = [deep];
 * describeNonPlainData(deep)?.reason; // "nesting deeper than 512 levels"
 */
export const MAX_PLAIN_DATA_DEPTH = 512;

/**
 * Finds the first part of `value` that is not plain data: JSON values plus Date, Map, Set, BigInt and
 * Uint8Array. Functions, symbols, class instances, cycles, non-finite numbers and nesting deeper than
 * {@link MAX_PLAIN_DATA_DEPTH} are not plain data. Returns `undefined` when all of it is plain.
 *
 * @example
 * describeNonPlainData({ a: [1, () => 2] }); // { path: "a[1]", reason: "a function" }
 */
export function describeNonPlainData(value: unknown): { path: string; reason: string } | undefined {
  return visit(value, "", 0, new Set());
}

function visit(
  value: unknown,
  path: string,
  depth: number,
  ancestors: Set<object>,
): { path: string; reason: string } | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
    case "undefined":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : { path, reason: `the number ${value}` };
    case "function":
      return { path, reason: "a function" };
    case "symbol":
      return { path, reason: "a symbol" };
  }
  if (value === null) return undefined;
  if (depth >= MAX_PLAIN_DATA_DEPTH) {
    return { path, reason: `nesting deeper than ${MAX_PLAIN_DATA_DEPTH} levels` };
  }
  const obj = value as object;
  if (obj instanceof Date) {
    return Number.isNaN(obj.getTime()) ? { path, reason: "an invalid Date" } : undefined;
  }
  if (obj instanceof Uint8Array && obj.constructor === Uint8Array) return undefined;
  if (ancestors.has(obj)) return { path, reason: "a cycle (a value that contains itself)" };
  ancestors.add(obj);
  try {
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        const item = obj[i];
        if (item === undefined) return { path: `${path}[${i}]`, reason: "undefined inside an array" };
        const bad = visit(item, `${path}[${i}]`, depth + 1, ancestors);
        if (bad) return bad;
      }
      return undefined;
    }
    if (obj instanceof Map) {
      let i = 0;
      for (const [k, v] of obj) {
        const bad =
          visit(k, `${path}<key ${i}>`, depth + 1, ancestors) ??
          // An object key cannot always be turned into a string (null prototype, own `toString` data).
          visit(v, `${path}<${typeof k === "object" && k !== null ? `value ${i}` : String(k)}>`, depth + 1, ancestors);
        if (bad) return bad;
        i++;
      }
      return undefined;
    }
    if (obj instanceof Set) {
      let i = 0;
      for (const v of obj) {
        const bad = visit(v, `${path}{${i++}}`, depth + 1, ancestors);
        if (bad) return bad;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto as { constructor?: { name?: string } }).constructor?.name ?? "unknown";
      return { path, reason: `an instance of class ${name}` };
    }
    for (const key of Object.keys(obj)) {
      const bad = visit((obj as Record<string, unknown>)[key], path ? `${path}.${key}` : key, depth + 1, ancestors);
      if (bad) return bad;
    }
    return undefined;
  } finally {
    ancestors.delete(obj);
  }
}
