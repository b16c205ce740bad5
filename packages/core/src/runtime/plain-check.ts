import { MAX_PLAIN_DATA_DEPTH } from "@trellis/checkpoint";

const NOT_PLAIN = -1;
/** Memo mark of an object whose walk has started but not finished: meeting it again is a cycle. */
const IN_PROGRESS = -2;

/**
 * Objects met during one check: the height of their subtree (0: no nested objects) once found plain,
 * IN_PROGRESS while they are being walked. An object referenced many times in one update is walked
 * once. Never kept across updates: a node may change an object in place between two steps. @internal
 */
export type PlainMemo = Map<object, number>;

/**
 * The fast yes/no form of `describeNonPlainData`: true exactly when it would return `undefined`, but
 * builds no paths and walks each shared object once (the runtime checks every write, and large states
 * pass the same objects along by reference). Callers ask `describeNonPlainData` for the details only
 * when this says no. @internal
 */
export function isPlainData(value: unknown, memo: PlainMemo = new Map()): boolean {
  return height(value, 0, memo) !== NOT_PLAIN;
}

/** Height of `value`'s subtree of objects when it is plain data at `depth`, else NOT_PLAIN. */
function height(value: unknown, depth: number, memo: PlainMemo): number {
  if (value === null || typeof value !== "object") return primitiveOk(value) ? 0 : NOT_PLAIN;
  if (depth >= MAX_PLAIN_DATA_DEPTH) return NOT_PLAIN;
  const obj = value as object;
  const known = memo.get(obj);
  if (known !== undefined) {
    if (known === IN_PROGRESS) return NOT_PLAIN; // a cycle
    // A subtree found plain has no cycle, so it cannot contain one of the current ancestors either.
    return depth + known < MAX_PLAIN_DATA_DEPTH ? known : NOT_PLAIN;
  }
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? NOT_PLAIN : 0;
  if (obj instanceof Uint8Array && obj.constructor === Uint8Array) return 0;
  memo.set(obj, IN_PROGRESS);
  const h = objectHeight(obj, depth, memo);
  if (h === NOT_PLAIN) memo.delete(obj);
  else memo.set(obj, h);
  return h;
}

/** The height of an array, Map, Set or plain object whose children are all plain, else NOT_PLAIN. */
function objectHeight(obj: object, depth: number, memo: PlainMemo): number {
  let h = 0;
  if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i++) {
      const item: unknown = obj[i];
      if (item === undefined) return NOT_PLAIN;
      h = taller(h, item, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
    return h;
  }
  if (obj instanceof Map) {
    for (const [k, v] of obj) {
      h = taller(h, k, depth, memo);
      if (h !== NOT_PLAIN) h = taller(h, v, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
    return h;
  }
  if (obj instanceof Set) {
    for (const v of obj) {
      h = taller(h, v, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
    return h;
  }
  const proto = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
  const record = obj as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    h = taller(h, record[key], depth, memo);
    if (h === NOT_PLAIN) return NOT_PLAIN;
  }
  return h;
}

/** `h` raised to cover `child` (one level below `depth`), or NOT_PLAIN when the child is not plain. */
function taller(h: number, child: unknown, depth: number, memo: PlainMemo): number {
  if (child === null || typeof child !== "object") return primitiveOk(child) ? h : NOT_PLAIN;
  const c = height(child, depth + 1, memo);
  if (c === NOT_PLAIN) return NOT_PLAIN;
  return Math.max(c + 1, h);
}

function primitiveOk(value: unknown): boolean {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value);
    case "function":
    case "symbol":
      return false;
    default:
      return true;
  }
}
