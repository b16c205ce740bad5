import { MAX_PLAIN_DATA_DEPTH } from "./plain-data.js";

/** {@link walkPlainData}'s answer when the value is not plain data. */
export const NOT_PLAIN = -1;
/** Memo mark of an object whose walk has started but not finished: meeting it again is a cycle. */
const IN_PROGRESS = -2;
/** Bit 0 of a plain answer: somewhere inside is a value JSON alone cannot carry (see {@link walkPlainData}). */
export const NEEDS_TAGS = 1;
const TAG_KEY = "$trellis";

/**
 * What one walk has learnt: for each object met, its answer once found plain, or IN_PROGRESS while it
 * is being walked. `map` is made on first need, so walking small values allocates nothing.
 *
 * `known`: answers earlier walks found (the runtime keeps one per run); looked up like `map`, never
 * written here. `found` (with `known`): where this walk collects the objects holding nested ones it
 * found plain, with their answers, in pairs, for the caller to add to `known` once the walk has passed.
 *
 * @example
 * const memo: PlainWalkMemo = { map: undefined };
 * walkPlainData([{ a: 1 }], memo) !== NOT_PLAIN; // true
 */
export interface PlainWalkMemo {
  map: Map<object, number> | undefined;
  known?: WeakMap<object, number> | undefined;
  found?: Array<object | number>;
  /** Children of leaf objects this walk has looked at so far (see LEAF_MEMO_AFTER). */
  seen?: number;
}

/** Leaf objects (no nested objects) are remembered only from this many children up: smaller ones are cheaper to walk again. */
const MEMO_LEAVES_FROM = 16;

/**
 * Leaf objects — most objects of a wide value — are remembered only once a walk has looked at this many
 * of their children. Remembering one costs a hash-table insert, several times the walk of its
 * children, and pays off only when the same leaf is met again in the same walk; never remembering them
 * would make a value holding one leaf many times cost leaves × references (quadratic). Walking this
 * many children first bounds that extra work at ~1 ms, and a value smaller than this is walked with no
 * insert for its leaves at all.
 */
const LEAF_MEMO_AFTER = 1 << 19;

/**
 * One pass over `value` that answers, together, what `describeNonPlainData` and the serializer each
 * used to walk for: `NOT_PLAIN` exactly when `describeNonPlainData` finds something (a function, a
 * symbol, a class instance, a cycle, a non-finite number, `undefined` in an array, nesting deeper than
 * {@link MAX_PLAIN_DATA_DEPTH}); otherwise `height << 1 | tags`, where `height` is how deep objects nest
 * inside (0: none) and the {@link NEEDS_TAGS} bit says whether JSON alone would lose something (a Date,
 * Map, Set, BigInt, Uint8Array, `undefined`, `-0`, a null-prototype object or an own `$trellis` key).
 *
 * Builds no paths (ask `describeNonPlainData` for them once this says no) and allocates nothing per
 * value: primitive children are settled inline, only nested objects recurse (at most
 * MAX_PLAIN_DATA_DEPTH frames), and an object holding nested ones is walked once however often the
 * value refers to it. Exported for the runtime's check of node writes (`@trellis/core`), which shares it;
 * most code wants `describeNonPlainData` or a serializer instead.
 *
 * @example
 * walkPlainData({ at: new Date(0) }, { map: undefined }) & NEEDS_TAGS; // 1
 * walkPlainData([() => 1], { map: undefined }) === NOT_PLAIN; // true
 */
export function walkPlainData(value: unknown, memo: PlainWalkMemo): number {
  if (value === null || typeof value !== "object") return primitive(value);
  return walk(value, 0, memo);
}

function walk(obj: object, depth: number, memo: PlainWalkMemo): number {
  if (depth >= MAX_PLAIN_DATA_DEPTH) return NOT_PLAIN;
  const map = memo.map;
  let memoed = map === undefined ? undefined : map.get(obj);
  if (memoed === undefined && memo.known !== undefined) memoed = memo.known.get(obj);
  if (memoed !== undefined) {
    if (memoed === IN_PROGRESS) return NOT_PLAIN; // a cycle
    // A subtree found plain has no cycle, so it cannot contain one of the current ancestors either.
    return depth + (memoed >> 1) < MAX_PLAIN_DATA_DEPTH ? memoed : NOT_PLAIN;
  }
  // The answer so far: height << 1 | tags.
  let r = 0;
  let size: number;
  if (Array.isArray(obj)) {
    const list = obj as unknown[];
    size = list.length;
    for (let i = 0; i < size; i++) {
      const item = list[i];
      switch (typeof item) {
        case "string":
        case "boolean":
          continue;
        case "number":
          if (item - item !== 0) return NOT_PLAIN; // NaN or ±Infinity
          if (item === 0 && 1 / item < 0) r |= NEEDS_TAGS; // -0
          continue;
        case "object":
          if (item === null) continue;
          r = nested(r, obj, item, depth, memo);
          if (r === NOT_PLAIN) return NOT_PLAIN;
          continue;
        case "bigint":
          r |= NEEDS_TAGS;
          continue;
        default:
          return NOT_PLAIN; // undefined (a hole too), a function, a symbol
      }
    }
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto === Object.prototype || proto === null) {
      if (proto === null) r = NEEDS_TAGS;
      const record = obj as Record<string, unknown>;
      const keys = Object.keys(record);
      size = keys.length;
      for (let i = 0; i < size; i++) {
        const key = keys[i] as string;
        const item = record[key];
        switch (typeof item) {
          case "string":
          case "boolean":
            break;
          case "number":
            if (item - item !== 0) return NOT_PLAIN;
            if (item === 0 && 1 / item < 0) r |= NEEDS_TAGS;
            break;
          case "object":
            if (item === null) break;
            r = nested(r, obj, item, depth, memo);
            if (r === NOT_PLAIN) return NOT_PLAIN;
            break;
          case "function":
          case "symbol":
            return NOT_PLAIN;
          default:
            r |= NEEDS_TAGS; // a bigint or undefined
        }
        if (key === TAG_KEY) r |= NEEDS_TAGS;
      }
    } else if (obj instanceof Date) {
      return Number.isNaN(obj.getTime()) ? NOT_PLAIN : NEEDS_TAGS;
    } else if (obj instanceof Uint8Array) {
      return obj.constructor === Uint8Array ? NEEDS_TAGS : NOT_PLAIN;
    } else if (obj instanceof Map) {
      size = obj.size;
      r = NEEDS_TAGS;
      for (const [k, v] of obj) {
        r = member(r, obj, k, depth, memo);
        if (r !== NOT_PLAIN) r = member(r, obj, v, depth, memo);
        if (r === NOT_PLAIN) return NOT_PLAIN;
      }
    } else if (obj instanceof Set) {
      size = obj.size;
      r = NEEDS_TAGS;
      for (const v of obj) {
        r = member(r, obj, v, depth, memo);
        if (r === NOT_PLAIN) return NOT_PLAIN;
      }
    } else {
      return NOT_PLAIN; // a class instance
    }
  }
  if (r > NEEDS_TAGS) {
    // Holds nested objects: `nested` made the map and marked this object in it.
    (memo.map as Map<object, number>).set(obj, r);
    if (memo.known) {
      memo.found ??= [];
      memo.found.push(obj, r);
    }
  } else if (size >= MEMO_LEAVES_FROM) {
    const seen = (memo.seen ?? 0) + size;
    memo.seen = seen;
    if (seen > LEAF_MEMO_AFTER) memoOf(memo).set(obj, r);
  }
  return r;
}

/** A Map's key or value, or a Set's member: checked like an array item, except that `undefined` is plain. */
function member(r: number, parent: object, value: unknown, depth: number, memo: PlainWalkMemo): number {
  if (value === null || typeof value !== "object") {
    const p = primitive(value);
    return p === NOT_PLAIN ? NOT_PLAIN : r | p;
  }
  return nested(r, parent, value, depth, memo);
}

/**
 * `r` (the answer for `parent` so far) raised to cover the nested object `value`, or NOT_PLAIN when it
 * is not plain. Marks `parent` IN_PROGRESS before entering its first nested object (while its height
 * is still 0): only a path through a nested object can lead back to it.
 */
function nested(r: number, parent: object, value: object, depth: number, memo: PlainWalkMemo): number {
  if (r <= NEEDS_TAGS) memoOf(memo).set(parent, IN_PROGRESS);
  const c = walk(value, depth + 1, memo);
  if (c === NOT_PLAIN) return NOT_PLAIN;
  const h = (c >> 1) + 1;
  return (Math.max(h, r >> 1) << 1) | (r & NEEDS_TAGS) | (c & NEEDS_TAGS);
}

function memoOf(memo: PlainWalkMemo): Map<object, number> {
  if (!memo.map) memo.map = new Map();
  return memo.map;
}

/** The answer for a value that is not an object (or is null). */
function primitive(value: unknown): number {
  switch (typeof value) {
    case "number":
      if (value - value !== 0) return NOT_PLAIN;
      return value === 0 && 1 / value < 0 ? NEEDS_TAGS : 0;
    case "bigint":
    case "undefined":
      return NEEDS_TAGS;
    case "function":
    case "symbol":
      return NOT_PLAIN;
    default:
      return 0;
  }
}
