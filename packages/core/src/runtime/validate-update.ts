import { describeNonPlainData } from "@trellis/checkpoint";
import { InvalidUpdateError } from "../errors.js";
import type { StateSchema } from "../state.js";
import { isPlainData, type KnownPlain, type PlainMemo } from "./plain-check.js";

/** Throws an `InvalidUpdateError` naming `node` and `key` unless `value` is plain data. @internal */
export function assertPlainValue(value: unknown, node: string, key: string, memo?: PlainMemo): void {
  if (isPlainData(value, memo)) return;
  const bad = describeNonPlainData(value);
  if (!bad) return;
  const at = bad.path ? ` at ${bad.path}` : "";
  throw new InvalidUpdateError(
    "NOT_PLAIN_DATA",
    `${writer(node)} wrote ${key}${at}, which is ${bad.reason}. State must be plain data (JSON, Date, Map, Set, BigInt, Uint8Array); convert it before returning it.`,
    { details: { node, key, path: bad.path, reason: bad.reason } },
  );
}

/**
 * Checks a node's update against the schema: an object whose keys the schema declares, holding plain
 * data. Returns it, or null for "no update". `known`: what the run has already found plain. @internal
 */
export function validateUpdate(
  schema: StateSchema,
  node: string,
  update: unknown,
  known?: KnownPlain,
): Record<string, unknown> | null {
  if (update === undefined || update === null) return null;
  if (typeof update !== "object" || Array.isArray(update) || Object.getPrototypeOf(update) !== Object.prototype) {
    throw new InvalidUpdateError(
      "INVALID_UPDATE",
      `${node === "input" ? "The run's input is" : `Node "${node}" returned`} ${describe(update)}; a node must return an object of state keys, a Command, or nothing.`,
      { details: { node } },
    );
  }
  const record = update as Record<string, unknown>;
  const memo: PlainMemo = { map: undefined, known };
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(schema, key)) {
      throw new InvalidUpdateError(
        "UNKNOWN_STATE_KEY",
        `${writer(node)} wrote the key "${key}", which the state schema does not declare. Declare it in the schema or stop writing it. Declared keys: ${Object.keys(schema).join(", ") || "(none)"}.`,
        { details: { node, key } },
      );
    }
    assertPlainValue(record[key], node, `"${key}"`, memo);
  }
  return record;
}

/** How an error names who wrote: a node, or the run's input. */
function writer(node: string): string {
  return node === "input" ? "The run's input" : `Node "${node}"`;
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) {
    return `an instance of ${(Object.getPrototypeOf(value) as { constructor?: { name?: string } })?.constructor?.name ?? "a class"}`;
  }
  return `a ${typeof value}`;
}
