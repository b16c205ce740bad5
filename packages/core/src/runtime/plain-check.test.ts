import { describeNonPlainData, MAX_PLAIN_DATA_DEPTH } from "@trellis/checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPlainData } from "./plain-check.js";

function agree(value: unknown): void {
  let plain: boolean;
  try {
    plain = describeNonPlainData(value) === undefined;
  } catch {
    // describeNonPlainData throws when it cannot print a Map key (a null-prototype object) in a path;
    // isPlainData prints no paths. Nothing to compare.
    return;
  }
  expect(isPlainData(value)).toBe(plain);
}

function nest(depth: number): unknown {
  let value: unknown = { leaf: 1 };
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe("isPlainData", () => {
  it("agrees with describeNonPlainData on arbitrary values", () => {
    const odd = fc.constantFrom<unknown>(
      () => 1,
      Symbol("s"),
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(Number.NaN),
      new Date(0),
      new Uint8Array([1, 2]),
      Buffer.from("x"),
      new Int8Array(2),
      new (class Point {})(),
      Object.create(null),
      10n,
      undefined,
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.jsonValue(),
        odd,
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 4 }),
        fc.array(fc.tuple(tie("node"), tie("node")), { maxLength: 3 }).map((pairs) => new Map(pairs)),
        fc.array(tie("node"), { maxLength: 3 }).map((items) => new Set(items)),
      ),
    })).node;
    fc.assert(fc.property(value, agree), { numRuns: 2000 });
  });

  it("agrees on shared references, cycles and holes", () => {
    const shared = { a: [1, 2, { b: "c" }] };
    agree({ x: shared, y: [shared, shared], z: new Map([[shared, shared]]) });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    agree(cycle);
    const list: unknown[] = [1];
    list.push(list);
    agree(list);
    const holey: unknown[] = [1];
    holey[2] = 3;
    agree(holey);
    agree([1, undefined]);
    agree({ a: undefined });
    const bad = { f: () => 1 };
    agree({ x: shared, y: bad, z: [bad, shared] });
  });

  it("agrees at the depth limit, also for an object met first shallow and then deep", () => {
    for (const depth of [
      MAX_PLAIN_DATA_DEPTH - 3,
      MAX_PLAIN_DATA_DEPTH - 2,
      MAX_PLAIN_DATA_DEPTH - 1,
      MAX_PLAIN_DATA_DEPTH,
    ]) {
      agree(nest(depth));
    }
    const inner = nest(5);
    let deep: unknown = inner;
    for (let i = 0; i < MAX_PLAIN_DATA_DEPTH - 7; i++) deep = [deep];
    agree([inner, deep]);
    agree([inner, [deep]]);
    agree([inner, [[deep]]]);
    const leaf = Array.from({ length: 20 }, (_, i) => i);
    for (const extra of [-2, -1, 0]) {
      let deepLeaf: unknown = leaf;
      for (let i = 0; i < MAX_PLAIN_DATA_DEPTH + extra; i++) deepLeaf = [deepLeaf];
      agree([leaf, deepLeaf]);
    }
  });
});
