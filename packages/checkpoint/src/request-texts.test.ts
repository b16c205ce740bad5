import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digest } from "./digest.js";
import { LongTexts } from "./long-texts.js";
import { RequestTexts } from "./request-texts.js";
import { jsonSerializer } from "./serializer.js";

/** A dict of `n` keys, each holding a small list: ~40 characters of JSON per key. */
function wide(n: number, label = "v"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`${label}${i}`] = [`${label}-${i}`, i, true, null];
  return out;
}

describe("RequestTexts", () => {
  it("writes exactly what the serializer writes, for values holding one object many times", () => {
    const inner = wide(40);
    const big = { a: inner, b: { deeper: inner, list: [inner, inner] }, n: 1 };
    const values: unknown[] = [
      [big, big, big],
      { one: big, two: [big, { big }], s: 'é\u2028"', "": [] },
      [[[[inner]]]],
      { __proto__: null, x: 1 },
      JSON.parse('{"__proto__": {"a": [{"b": 1}]}, "k": [[1], [2]]}'),
      { at: new Date(0), list: [big, big] },
      [1, "two", null, false, {}, []],
      "text",
      42,
    ];
    const texts = new RequestTexts(jsonSerializer);
    for (const value of values) expect(texts.serialize(value)).toBe(jsonSerializer.serialize(value));
  });

  it("matches the serializer on arbitrary JSON values, met once or several times", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 4 }), (items) => {
        const value = [items, { again: items }, items];
        expect(new RequestTexts(jsonSerializer).serialize(value)).toBe(jsonSerializer.serialize(value));
      }),
    );
  });

  it("refuses what the serializer refuses, with its error", () => {
    const bad = [{ deep: [wide(2), { f: () => 1 }] }, { deep: [wide(2), { f: () => 1 }] }];
    expect(() => new RequestTexts(jsonSerializer).serialize(bad)).toThrow(/NOT_PLAIN_DATA|not plain|function/);
  });

  it("remembers nothing across requests: an object changed in place between two is written as it is now", () => {
    const inner = wide(40);
    const value = [{ inner }, { inner }];
    const before = new RequestTexts(jsonSerializer).serialize(value);
    (inner as Record<string, unknown>).added = [[1]];
    const after = new RequestTexts(jsonSerializer).serialize(value);
    expect(after).not.toBe(before);
    expect(after).toBe(JSON.stringify(value));
  });

  it("keys equal texts alike, whichever objects wrote them, and different texts apart", () => {
    const inner = wide(60);
    const value = { list: [inner, inner, { inner }], n: 1 };
    const key = (v: unknown) => new RequestTexts(jsonSerializer).serializeKeyed(v).key;
    const copy = structuredClone(value);
    expect(key(copy)).toBe(key(value));
    expect(key(value)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A change deep inside one member, or the members' order, changes the key.
    const changed = structuredClone(value);
    (changed.list[2] as { inner: Record<string, unknown> }).inner.v59 = ["other"];
    expect(key(changed)).not.toBe(key(value));
    expect(key({ n: 1, list: value.list })).not.toBe(key(value));
    // A long text written whole is keyed by its own digest; a short one has no key.
    expect(key(inner)).toBe(digest("sha256", JSON.stringify(inner)));
    expect(key({ a: 1 })).toBeUndefined();
  });

  it("keys a value the same in one request as alone", () => {
    const inner = wide(60);
    const value = [inner, { inner }];
    const texts = new RequestTexts(jsonSerializer);
    texts.serialize({ first: inner });
    expect(texts.serializeKeyed(value)).toEqual(new RequestTexts(jsonSerializer).serializeKeyed(value));
  });
});

describe("LongTexts", () => {
  const long = (c: string) => c.repeat(2000);

  it("keeps the first text of a key, and short texts as they are", () => {
    const texts = new LongTexts();
    const a = long("a");
    expect(texts.keep(a, "k1")).toBe(a);
    expect(texts.keep(long("a"), "k1")).toBe(a);
    expect(texts.keep(long("b"))).toBe(long("b"));
    expect(texts.keep("short", "k1")).toBe("short");
    expect([...texts.values()]).toEqual([a, long("b")]);
  });

  it("forgets the texts no longer held, and keeps the keys of the others", () => {
    const texts = new LongTexts();
    const a = texts.keep(long("a"), "ka");
    texts.keep(long("b"), "kb");
    texts.retain([a, "short"]);
    expect([...texts.values()]).toEqual([a]);
    // Still found by its key, not by its text.
    expect(texts.keep("x".repeat(2000), "ka")).toBe(a);
  });
});
