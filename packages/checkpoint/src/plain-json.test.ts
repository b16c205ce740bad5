import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemorySaver } from "./memory-saver.js";
import { isPlainJson } from "./plain-json.js";
import { jsonSerializer } from "./serializer.js";
import { CHECKPOINT_FORMAT_VERSION, type Checkpoint } from "./types.js";

class Point {
  constructor(readonly x: number) {}
}

/** Values of every kind the serializer knows, plus some it refuses. */
const anyValue = fc.anything({
  withBigInt: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withBoxedValues: true,
  key: fc.oneof(fc.string(), fc.constant("$trellis")),
});

function checkpoint(metadata: Record<string, unknown>): Checkpoint {
  return {
    v: CHECKPOINT_FORMAT_VERSION,
    id: "00000000000000010000000000000000",
    parentId: null,
    threadId: "t",
    namespace: "",
    step: 0,
    createdAt: new Date(0).toISOString(),
    channelVersions: {},
    channelDepths: {},
    next: [],
    barriers: {},
    metadata: { source: "input", step: 0, writes: {}, ...metadata },
  };
}

describe("isPlainJson", () => {
  it("answers true only where the default serializer's text is JSON.stringify's", () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        if (!isPlainJson(value)) return;
        expect(jsonSerializer.serialize(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves what needs a tag, or a refusal, to the serializer", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    for (const value of [
      new Date(0),
      new Map([[1, 2]]),
      new Set([1]),
      1n,
      undefined,
      -0,
      Number.NaN,
      [1, undefined],
      { $trellis: "Date" },
      Object.create(null),
      new Point(1),
      () => 1,
      cycle,
      deep,
    ]) {
      expect(isPlainJson({ a: [value] })).toBe(false);
    }
    expect(isPlainJson({ source: "loop", step: 3, writes: { a: ["k"] }, next: [{ node: "b" }] })).toBe(true);
  });

  it("MemorySaver still keeps tagged values and refuses what is not plain data", async () => {
    const saver = new MemorySaver();
    await saver.put({ checkpoint: checkpoint({ at: new Date(5), tags: new Set(["x"]) }), blobs: [] });
    const tuple = await saver.get({ threadId: "t" });
    expect(tuple?.checkpoint.metadata).toMatchObject({ at: new Date(5), tags: new Set(["x"]) });
    await expect(saver.put({ checkpoint: checkpoint({ bad: new Point(1) }), blobs: [] })).rejects.toMatchObject({
      code: "NOT_PLAIN_DATA",
    });
  });
});
