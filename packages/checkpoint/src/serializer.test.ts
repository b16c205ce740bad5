import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TrellisError } from "./errors.js";
import { describeNonPlainData } from "./plain-data.js";
import { jsonSerializer } from "./serializer.js";

function caught(f: () => unknown): TrellisError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(TrellisError);
    return error as TrellisError;
  }
  throw new Error("expected a throw");
}

const plainValue = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue(),
    fc.constantFrom<unknown>(-0, 10n, undefined, new Date(0), new Uint8Array([1, 2]), { $trellis: "Date", v: "x" }),
    fc.array(
      tie("node").filter((v) => v !== undefined),
      { maxLength: 4 },
    ),
    fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 4 }),
    fc.array(fc.tuple(fc.string({ maxLength: 2 }), tie("node")), { maxLength: 3 }).map((pairs) => new Map(pairs)),
    fc.array(tie("node"), { maxLength: 3 }).map((items) => new Set(items)),
  ),
})).node;

describe("jsonSerializer", () => {
  it("round-trips plain data, with or without tags, exactly (-0 and undefined included)", () => {
    fc.assert(
      fc.property(plainValue, (value) => {
        const back = jsonSerializer.deserialize(jsonSerializer.serialize(value));
        // toEqual: a null-prototype object comes back as an ordinary one, by design.
        expect(back).toEqual(value);
      }),
      { numRuns: 1500 },
    );
    const withUndefined = jsonSerializer.deserialize(jsonSerializer.serialize({ a: undefined })) as object;
    expect(Object.hasOwn(withUndefined, "a")).toBe(true);
    expect(
      Object.is((jsonSerializer.deserialize(jsonSerializer.serialize({ a: [-0] })) as { a: number[] }).a[0], -0),
    ).toBe(true);
  });

  it("stores JSON values as plain JSON, with no tags", () => {
    const value = { a: [1, "x", null, true, { b: 2.5 }], c: "d" };
    expect(jsonSerializer.serialize(value)).toBe(JSON.stringify(value));
    const shared = { k: [1, 2, 3] };
    expect(jsonSerializer.serialize([shared, shared])).toBe(JSON.stringify([shared, shared]));
  });

  it("stores untagged values, shared objects included, as JSON.stringify writes them, text for text", () => {
    const shareable = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.jsonValue({ maxDepth: 2 }),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    const withSharing = fc
      .tuple(fc.array(shareable, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 8 }))
      .map(([pool, picks]) => {
        // Ordinary prototypes, as state objects have; the same objects referred to from several places.
        const objects = pool.map((v) => JSON.parse(JSON.stringify(v)) as unknown);
        const list = picks.map((i) => objects[i % objects.length]);
        return { list, nested: { again: list, first: objects[0] }, deeper: [[list, objects]] };
      });
    fc.assert(
      fc.property(withSharing, (value) => {
        expect(jsonSerializer.serialize(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 1000 },
    );
    const big = { a: { b: [1, 2, { c: "d" }] }, "1111": [{ x: 1 }], __proto__: null };
    const plainBig = JSON.parse(JSON.stringify({ ...big, "": "empty key", 'q"uote': "\\" }));
    const value = { lists: [[plainBig, plainBig], [plainBig]], one: plainBig };
    expect(jsonSerializer.serialize(value)).toBe(JSON.stringify(value));
  });

  it("refuses non-plain data with NOT_PLAIN_DATA naming where it is", () => {
    const cases: Array<[unknown, string, string]> = [
      [{ key: new (class Point {})() }, "key", "an instance of class Point"],
      [{ key: [1, () => 2] }, "key[1]", "a function"],
      [{ key: { n: Number.NaN } }, "key.n", "the number NaN"],
      [{ key: [undefined] }, "key[0]", "undefined inside an array"],
      [{ key: Buffer.from("x") }, "key", "an instance of class Buffer"],
    ];
    for (const [value, path, reason] of cases) {
      const e = caught(() => jsonSerializer.serialize(value));
      expect(e.code).toBe("NOT_PLAIN_DATA");
      expect(e.details).toEqual({ path, reason });
      expect(e.message).toContain(`Cannot serialize ${path}: it is ${reason}`);
    }
    const cycle: Record<string, unknown> = {};
    cycle.self = { back: cycle };
    expect(caught(() => jsonSerializer.serialize({ key: cycle })).details).toEqual(
      describeNonPlainData({ key: cycle }),
    );
  });

  it("refuses exactly what describeNonPlainData refuses", () => {
    const anyValue = fc.oneof(
      plainValue,
      fc.dictionary(
        fc.string({ maxLength: 2 }),
        fc.constantFrom<unknown>(() => 1, Symbol("s"), Number.NaN, 1, "s"),
      ),
    );
    fc.assert(
      fc.property(anyValue, (value) => {
        const bad = describeNonPlainData(value);
        if (bad === undefined) expect(() => jsonSerializer.serialize(value)).not.toThrow();
        else expect(caught(() => jsonSerializer.serialize(value)).details).toEqual(bad);
      }),
      { numRuns: 1000 },
    );
  });
});
