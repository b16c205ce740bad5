import type { StoreFilter } from "./store.js";

/**
 * One condition of a store filter that a SQL backend can evaluate exactly as
 * `matchesStoreFilter` does: a top-level field equal (or not) to a scalar, or compared with a number
 * or a string. `eq` and `ne` hold between values of the same JSON type only (`1` is not `true`, a
 * missing field is not `null`); `gt`… hold between two numbers or two strings (compared code point by
 * code point), never between a number and a string.
 *
 * @example
 * const c: StoreCondition = { field: "stars", op: "gte", value: 4 };
 */
export type StoreCondition =
  | { field: string; op: "eq" | "ne"; value: string | number | boolean | null }
  | { field: string; op: "gt" | "gte" | "lt" | "lte"; value: string | number };

/**
 * A filter split into the conditions a database evaluates (`conditions`) and what is left for the
 * store to check in this process (`rest`, undefined when nothing is).
 *
 * @example
 * const { conditions, rest } = splitStoreFilter({ kind: "tip", tags: ["a"] });
 * // conditions: [{ field: "kind", op: "eq", value: "tip" }], rest: { tags: ["a"] }
 */
export interface SplitStoreFilter {
  conditions: StoreCondition[];
  rest: StoreFilter | undefined;
}

const COMPARISONS: Record<string, StoreCondition["op"]> = {
  $eq: "eq",
  $ne: "ne",
  $gt: "gt",
  $gte: "gte",
  $lt: "lt",
  $lte: "lte",
};

/**
 * Splits a checked filter (see `checkFilter`) into conditions a SQL backend evaluates exactly and the
 * rest. A condition is pushed when its field is a name a JSON path can quote (no `"` or `\`) and its
 * value a scalar (equality) or a number or string (comparison); lists and objects compared whole stay
 * in `rest`. Strings compared by order are pushed only when they hold no character at or above U+D800,
 * where UTF-8 byte order (SQLite, Postgres `COLLATE "C"`) and JavaScript's UTF-16 order could differ.
 *
 * @example
 * splitStoreFilter({ kind: "tip", stars: { $gte: 4 } }).conditions.length; // 2
 */
export function splitStoreFilter(filter: StoreFilter | undefined): SplitStoreFilter {
  const conditions: StoreCondition[] = [];
  const rest: Record<string, unknown> = {};
  for (const [field, condition] of Object.entries(filter ?? {})) {
    const operators = operatorsOf(condition);
    if (!operators) {
      if (pushableField(field) && isScalar(condition)) conditions.push({ field, op: "eq", value: condition });
      else rest[field] = condition;
      continue;
    }
    const left: Record<string, unknown> = {};
    for (const [name, expected] of Object.entries(operators)) {
      const op = COMPARISONS[name];
      const pushed = op !== undefined && pushableField(field) && pushableValue(op, expected);
      if (pushed) conditions.push({ field, op, value: expected } as StoreCondition);
      else left[name] = expected;
    }
    if (Object.keys(left).length > 0) rest[field] = left;
  }
  return { conditions, rest: Object.keys(rest).length > 0 ? rest : undefined };
}

function operatorsOf(condition: unknown): Record<string, unknown> | undefined {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) return undefined;
  const keys = Object.keys(condition);
  return keys.length > 0 && keys.every((k) => k.startsWith("$")) ? (condition as Record<string, unknown>) : undefined;
}

function pushableField(field: string): boolean {
  return (
    field !== "" && field.length <= 256 && !field.includes('"') && !field.includes("\\") && !field.includes("\u0000")
  );
}

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === "boolean" || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
}

function pushableValue(op: StoreCondition["op"], v: unknown): boolean {
  if (op === "eq" || op === "ne") return isScalar(v);
  if (typeof v === "number") return Number.isFinite(v);
  return typeof v === "string" && !/[\uD800-\uFFFF]/.test(v);
}

/**
 * The filter one condition stands for, to check it in this process (`matchesStoreFilter`).
 *
 * @example
 * conditionFilter({ field: "stars", op: "gte", value: 4 }); // { stars: { $gte: 4 } }
 */
export function conditionFilter(c: StoreCondition): StoreFilter {
  return { [c.field]: { [`$${c.op}`]: c.value } };
}
