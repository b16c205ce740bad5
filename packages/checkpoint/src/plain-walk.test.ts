import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeNonPlainData, MAX_PLAIN_DATA_DEPTH } from "./plain-data.js";
import { NEEDS_TAGS, NOT_PLAIN, type PlainWalkMemo, walkPlainData } from "./plain-walk.js";

/** The serializer's tag test before walkPlainData answered it: the oracle for the NEEDS_TAGS bit. */
function needsTagsOracle(value: unknown): boolean {
  if (value === null || typeof value !== "object") {
    return typeof value === "bigint" || value === undefined || Object.is(value, -0);
  }
  if (Array.isArray(value)) return value.some(needsTagsOracle);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return true;
  if (proto === null) return true;
  for (const key of Object.keys(value)) {
    if (key === "$trellis") return true;
    if (needsTagsOracle((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function answer(value: unknown): number {
  return walkPlainData(value, { map: undefined });
}

/** What a call did: the value it returned, or the error it threw. */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

function outcome<T>(call: () => T): Outcome<T> {
  try {
    return { ok: true, value: call() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The cases {@link agree} compared: every generated value counts, none is dropped. */
let compared = 0;

/**
 * The walk and the reference agree on `value`: both answer (NOT_PLAIN exactly when the reference
 * finds something; NEEDS_TAGS as the old tag test said), or both throw the same error.
 */
function agree(value: unknown): void {
  const reference = outcome(() => describeNonPlainData(value));
  const walked = outcome(() => answer(value));
  if (!reference.ok || !walked.ok) {
    expect(walked.ok ? "returned" : String(walked.error)).toBe(reference.ok ? "returned" : String(reference.error));
  } else {
    expect(walked.value === NOT_PLAIN).toBe(reference.value !== undefined);
    if (reference.value === undefined) expect((walked.value & NEEDS_TAGS) !== 0).toBe(needsTagsOracle(value));
  }
  compared++;
}

const odd = fc.constantFrom<unknown>(
  () => 1,
  Symbol("s"),
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  new Date(Number.NaN),
  new Date(0),
  new Uint8Array([1, 2]),
  Buffer.from("x"),
  new Int8Array(2),
  new Float64Array(1),
  new (class Point {})(),
  Object.create(null),
  { $trellis: "Date", v: "x" },
  10n,
  undefined,
);

const arbitraryValue = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue(),
    odd,
    fc.array(tie("node"), { maxLength: 4 }),
    // Wider than MEMO_LEAVES_FROM, so leaf objects take the counted path too.
    fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.double(), fc.boolean(), fc.constant(null), odd), {
      minLength: 16,
      maxLength: 20,
    }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 4 }),
    fc.array(fc.tuple(tie("node"), tie("node")), { maxLength: 3 }).map((pairs) => new Map(pairs)),
    fc.array(tie("node"), { maxLength: 3 }).map((items) => new Set(items)),
  ),
})).node;

describe("walkPlainData", () => {
  it("says NOT_PLAIN exactly when describeNonPlainData finds something, and NEEDS_TAGS as the serializer's old test did", () => {
    compared = 0;
    fc.assert(fc.property(arbitraryValue, agree), { numRuns: 3000 });
    expect(compared).toBe(3000);
  });

  it("agrees on each leaf kind an inline fast path settles", () => {
    for (const leaf of [
      "s",
      true,
      null,
      0,
      -0,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      10n,
      undefined,
      () => 1,
      Symbol("s"),
    ]) {
      agree(leaf);
      agree([leaf]);
      agree({ k: leaf });
      agree(new Map([["k", leaf]]));
      agree(new Set([leaf]));
    }
    expect(answer([-0])).toBe(NEEDS_TAGS);
    expect(answer({ a: undefined })).toBe(NEEDS_TAGS);
    expect(answer([undefined])).toBe(NOT_PLAIN);
    expect(answer([Number.NaN])).toBe(NOT_PLAIN);
  });

  it("rejects holes, class instances and typed arrays other than Uint8Array; tags null prototypes, Dates, Maps", () => {
    const holey: unknown[] = [1];
    holey[2] = 3;
    expect(answer(holey)).toBe(NOT_PLAIN);
    expect(answer([new (class Point {})()])).toBe(NOT_PLAIN);
    expect(answer({ b: Buffer.from("x") })).toBe(NOT_PLAIN);
    expect(answer({ b: new Int32Array(1) })).toBe(NOT_PLAIN);
    expect(answer(Object.create(null))).toBe(NEEDS_TAGS);
    expect(answer({ d: new Date(0) }) & NEEDS_TAGS).toBe(NEEDS_TAGS);
    expect(answer({ d: new Date(Number.NaN) })).toBe(NOT_PLAIN);
    expect(answer({ m: new Map([[1, 2]]) }) & NEEDS_TAGS).toBe(NEEDS_TAGS);
    expect(answer({ $trellis: 1 })).toBe(NEEDS_TAGS);
    expect(answer({ ok: [1, "a", null, true] })).toBe(1 << 1); // height 1, no tags
  });

  it("ignores symbol keys and non-enumerable properties as describeNonPlainData does, and reads getters", () => {
    const withSymbol = { a: 1, [Symbol("s")]: () => 1 };
    agree(withSymbol);
    expect(answer(withSymbol)).toBe(0);
    const hidden = Object.defineProperty({ a: 1 }, "f", { value: () => 1, enumerable: false });
    agree(hidden);
    expect(answer(hidden)).toBe(0);
    const getter = Object.defineProperty({}, "f", { get: () => () => 1, enumerable: true });
    agree(getter);
    expect(answer(getter)).toBe(NOT_PLAIN);
  });

  it("finds cycles, also through Maps and Sets and through objects met before", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    expect(answer(cycle)).toBe(NOT_PLAIN);
    const list: unknown[] = [1];
    list.push(list);
    expect(answer(list)).toBe(NOT_PLAIN);
    const map = new Map<unknown, unknown>();
    map.set("m", [map]);
    expect(answer(map)).toBe(NOT_PLAIN);
    const shared = { a: [1, 2, { b: "c" }] };
    expect(answer({ x: shared, y: [shared, shared] })).not.toBe(NOT_PLAIN);
  });

  it("applies the depth limit to a shared object met first shallow and then deep", () => {
    const leaf = Array.from({ length: 20 }, (_, i) => i);
    for (const extra of [-2, -1, 0]) {
      let deep: unknown = leaf;
      for (let i = 0; i < MAX_PLAIN_DATA_DEPTH + extra; i++) deep = [deep];
      agree([leaf, deep]);
    }
    const inner = { a: [1] };
    let deep: unknown = inner;
    for (let i = 0; i < MAX_PLAIN_DATA_DEPTH - 2; i++) deep = [deep];
    agree([inner, deep]);
    agree([inner, [deep]]);
    agree([deep, inner]);
  });

  it("trusts `known` answers and never writes to it; collects what it found in `found`", () => {
    const inner = { a: [1, 2] };
    const known = new WeakMap<object, number>();
    const memo: PlainWalkMemo = { map: undefined, known };
    expect(walkPlainData({ inner }, memo)).toBe(2 << 1);
    expect(known.has(inner)).toBe(false);
    expect(memo.found).toContain(inner);
    // A known answer is taken as it is: the walk does not look inside.
    known.set(inner, 1 << 1);
    (inner as Record<string, unknown>).f = () => 1;
    expect(walkPlainData({ inner }, { map: undefined, known })).not.toBe(NOT_PLAIN);
    expect(walkPlainData({ inner }, { map: undefined })).toBe(NOT_PLAIN);
  });

  it("remembers leaf objects only after many of their children, so one leaf met a million times costs one walk from then on", () => {
    const small = { map: undefined } as PlainWalkMemo;
    const leaf = Array.from({ length: 32 }, (_, i) => i);
    expect(walkPlainData([leaf, leaf], small)).toBe(1 << 1);
    expect(small.map?.has(leaf)).toBe(false); // the parent is remembered, the leaf is walked twice
    expect(small.seen).toBe(64);
    const many = { map: undefined } as PlainWalkMemo;
    const refs = new Array(1_000_000).fill(leaf);
    expect(walkPlainData(refs, many)).toBe(1 << 1);
    expect(many.map?.get(leaf)).toBe(0);
    expect(many.seen).toBeLessThan(2 * (1 << 19));
  });
});
