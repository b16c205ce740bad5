import { MAX_PLAIN_DATA_DEPTH } from "@trellis/checkpoint";

const NOT_PLAIN = -1;
/** Memo mark of an object whose walk has started but not finished: meeting it again is a cycle. */
const IN_PROGRESS = -2;

/**
 * What one check has learnt: for each object met, the height of its subtree once found plain (0: no
 * nested objects), or IN_PROGRESS while it is being walked. Made on first need, so checking small
 * values allocates nothing. An object referenced many times in one update is walked once.
 *
 * `known` is what earlier checks of the same run found plain (see {@link KnownPlain}): a value a node
 * passes on from the state it was given is not walked again. @internal
 */
export interface PlainMemo {
  map: Map<object, number> | undefined;
  known?: KnownPlain | undefined;
  /** With `known`: the objects holding nested ones this check found plain, and their heights, in pairs. */
  found?: Array<object | number>;
}

/**
 * Objects one run has already found plain, with their heights. Values that entered the state were
 * checked when they were written, and changing state values in place is unsupported (docs/concepts.md),
 * so a run checks each shared object once instead of once per step: a wide state passed along by
 * reference costs one walk. Weak, so it keeps nothing alive; made per run, never shared between runs,
 * because a caller may change its own input objects between two runs. @internal
 */
export type KnownPlain = WeakMap<object, number>;

/** Objects without nested objects are remembered only from this many children up: smaller ones are cheaper to walk again. */
const MEMO_LEAVES_FROM = 16;

/**
 * The fast yes/no form of `describeNonPlainData`: true exactly when it would return `undefined`, but
 * builds no paths and walks each shared object once (the runtime checks every write, and large states
 * pass the same objects along by reference). Callers ask `describeNonPlainData` for the details only
 * when this says no. @internal
 */
export function isPlainData(value: unknown, memo: PlainMemo = { map: undefined }): boolean {
  if (height(value, 0, memo) === NOT_PLAIN) return false;
  const known = memo.known;
  const found = memo.found;
  if (known && found) {
    // Only a check that passed leaves no IN_PROGRESS marks: what it found is plain now. The objects
    // holding nested ones are enough: a later check reaches the leaves only through them.
    for (let i = 0; i < found.length; i += 2) known.set(found[i] as object, found[i + 1] as number);
    found.length = 0;
  }
  return true;
}

/** Height of `value`'s subtree of objects when it is plain data at `depth`, else NOT_PLAIN. */
function height(value: unknown, depth: number, memo: PlainMemo): number {
  if (value === null || typeof value !== "object") return primitiveOk(value) ? 0 : NOT_PLAIN;
  if (depth >= MAX_PLAIN_DATA_DEPTH) return NOT_PLAIN;
  const obj = value as object;
  const known = memo.map?.get(obj) ?? memo.known?.get(obj);
  if (known !== undefined) {
    if (known === IN_PROGRESS) return NOT_PLAIN; // a cycle
    // A subtree found plain has no cycle, so it cannot contain one of the current ancestors either.
    return depth + known < MAX_PLAIN_DATA_DEPTH ? known : NOT_PLAIN;
  }
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? NOT_PLAIN : 0;
  if (obj instanceof Uint8Array && obj.constructor === Uint8Array) return 0;
  // Marked IN_PROGRESS (by `taller`) just before the walk enters its first nested object: only a path
  // through a nested object can lead back to it.
  const h = objectHeight(obj, depth, memo);
  if (h > 0) {
    (memo.map as Map<object, number>).set(obj, h);
    if (memo.known) {
      memo.found ??= [];
      memo.found.push(obj, h);
    }
  }
  return h;
}

/** The height of an array, Map, Set or plain object whose children are all plain, else NOT_PLAIN. */
function objectHeight(obj: object, depth: number, memo: PlainMemo): number {
  let h = 0;
  let size: number;
  if (Array.isArray(obj)) {
    size = obj.length;
    for (let i = 0; i < size; i++) {
      const item: unknown = obj[i];
      // Strings, booleans and null are most of a wide state's leaves: settled here, without a call.
      if (typeof item === "string" || typeof item === "boolean" || item === null) continue;
      if (item === undefined) return NOT_PLAIN;
      h = taller(h, obj, item, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
  } else if (obj instanceof Map) {
    size = obj.size;
    for (const [k, v] of obj) {
      h = taller(h, obj, k, depth, memo);
      if (h !== NOT_PLAIN) h = taller(h, obj, v, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
  } else if (obj instanceof Set) {
    size = obj.size;
    for (const v of obj) {
      h = taller(h, obj, v, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) return NOT_PLAIN;
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record);
    size = keys.length;
    for (const key of keys) {
      const item = record[key];
      if (typeof item === "string" || typeof item === "boolean" || item === null) continue;
      h = taller(h, obj, item, depth, memo);
      if (h === NOT_PLAIN) return NOT_PLAIN;
    }
  }
  if (h === 0 && size >= MEMO_LEAVES_FROM) memoOf(memo).set(obj, 0);
  return h;
}

/**
 * `h` (the height of `parent` so far) raised to cover `child`, or NOT_PLAIN when the child is not
 * plain. Marks `parent` IN_PROGRESS before entering its first nested object (while `h` is still 0).
 */
function taller(h: number, parent: object, child: unknown, depth: number, memo: PlainMemo): number {
  if (child === null || typeof child !== "object") return primitiveOk(child) ? h : NOT_PLAIN;
  if (h === 0) memoOf(memo).set(parent, IN_PROGRESS);
  const c = height(child, depth + 1, memo);
  if (c === NOT_PLAIN) return NOT_PLAIN;
  return Math.max(c + 1, h);
}

function memoOf(memo: PlainMemo): Map<object, number> {
  if (!memo.map) memo.map = new Map();
  return memo.map;
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
