import { expect, it } from "vitest";
import { CorruptCheckpointError, TrellisError } from "../errors.js";
import type { CorruptionTarget, SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, stepRequest, uniqueThreadId } from "./fixtures.js";

/** Corruption detection, serializer round-trips and refused values. @internal */
export function integrityCases(ctx: SaverTestContext): void {
  // Only savers that persist rows (and pass a `corrupt` hook) can be corrupted; the memory saver keeps
  // live objects, so these cases are not registered for it rather than skipped.
  const rows = ctx.options.corrupt ? (["checkpoint", "blob", "write"] as const) : [];
  for (const row of rows) {
    it(`detects a corrupted ${row} row by checksum, for that thread only`, async () => {
      const threadId = uniqueThreadId();
      const healthy = uniqueThreadId();
      for (const t of [threadId, healthy]) {
        const first = await putStep(ctx.saver, { threadId: t, id: ctx.nextId(), full: { m: ["a"], n: 1 } });
        await putStep(ctx.saver, {
          threadId: t,
          id: ctx.nextId(),
          parent: first,
          append: { m: ["b"] },
          writes: [{ taskId: "task", channel: "m", value: { text: "hello" } }],
        });
      }
      const head = await latest(ctx.saver, threadId);
      const target: CorruptionTarget = { threadId, namespace: "", checkpointId: head.checkpoint.id, row };
      await ctx.options.corrupt?.(ctx.saver, target);

      const error = await ctx.saver.get({ threadId }).catch((e) => e);
      expect(error).toBeInstanceOf(CorruptCheckpointError);
      expect(error.code).toBe("CORRUPT_CHECKPOINT");
      expect(error.details.threadId).toBe(threadId);
      const listed = await collect(ctx.saver.list(threadId)).catch((e) => e);
      expect(listed).toBeInstanceOf(CorruptCheckpointError);
      const other = await latest(ctx.saver, healthy);
      expect(other.values).toEqual({ m: ["a", "b"], n: 1 });
      expect(other.pendingWrites).toHaveLength(1);
      expect(await collect(ctx.saver.list(healthy))).toHaveLength(2);
    });
  }

  if (ctx.options.corrupt) {
    it("detects a corrupted shared value (stored once for a channel and a write), for that thread only", async () => {
      const threadId = uniqueThreadId();
      const healthy = uniqueThreadId();
      const long = { text: "a long value, stored once per thread ".repeat(100) };
      for (const t of [threadId, healthy]) {
        await putStep(ctx.saver, {
          threadId: t,
          id: ctx.nextId(),
          full: { doc: long, n: 1 },
          writes: [{ taskId: "task", channel: "doc", value: long }],
        });
      }
      const head = await latest(ctx.saver, threadId);
      await ctx.options.corrupt?.(ctx.saver, {
        threadId,
        namespace: "",
        checkpointId: head.checkpoint.id,
        row: "shared",
      });

      const error = await ctx.saver.get({ threadId }).catch((e) => e);
      expect(error).toBeInstanceOf(CorruptCheckpointError);
      expect(error.details.threadId).toBe(threadId);
      const other = await latest(ctx.saver, healthy);
      expect(other.values).toEqual({ doc: long, n: 1 });
      expect(other.pendingWrites).toEqual([{ taskId: "task", channel: "doc", value: long }]);
    });
  }

  it("round-trips Date, Map, Set, BigInt, Uint8Array and awkward strings in values, writes and metadata", async () => {
    const threadId = uniqueThreadId();
    const rich = {
      at: new Date("2031-02-03T04:05:06.789Z"),
      index: new Map<unknown, unknown>([
        ["k", 1],
        [2, new Set([1n, "two"])],
        [{ composite: true }, [new Date(0)]],
      ]),
      tags: new Set(["a", "b"]),
      big: 2n ** 70n,
      negative: -(2n ** 65n),
      bytes: new Uint8Array([0, 1, 127, 128, 255]),
      text: "é ü 😀 \u0000 \u2028 \ud800 'quotes' \"double\" \\ back",
      looksTagged: { $trellis: "Date", v: "not a date" },
      nested: [[[{ deep: [1, 2, { deeper: null }] }]]],
      numbers: [0, -0.5, 1e21, Number.MAX_SAFE_INTEGER],
      empty: { list: [], object: {}, text: "" },
    };
    const writes = [{ taskId: "t", channel: "rich", value: rich }];
    const metadata = { source: "input" as const, at: new Date(5), tags: new Set(["x"]) };
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { rich, plain: "ok" }, writes, metadata });
    const tuple = await latest(ctx.saver, threadId);
    expect(tuple.values).toEqual({ rich, plain: "ok" });
    expect(tuple.values.rich).not.toBe(rich);
    const back = tuple.values.rich as typeof rich;
    expect(back.at).toBeInstanceOf(Date);
    expect(back.index).toBeInstanceOf(Map);
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect(typeof back.big).toBe("bigint");
    expect(back.text).toBe(rich.text);
    expect(tuple.pendingWrites).toEqual(writes);
    expect(tuple.checkpoint.metadata.at).toEqual(new Date(5));
    expect(tuple.checkpoint.metadata.tags).toEqual(new Set(["x"]));
  });

  it("keeps `__proto__` keys as plain data and pollutes no prototype", async () => {
    const threadId = uniqueThreadId();
    const hostile = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"bad": 1}}}');
    const tagged = JSON.parse('{"__proto__": {"polluted": "yes"}, "when": 0}');
    tagged.when = new Date(0);
    await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      full: { hostile, tagged },
      writes: [{ taskId: "t", channel: "hostile", value: hostile }],
    });
    const tuple = await latest(ctx.saver, threadId);
    for (const value of [tuple.values.hostile, tuple.values.tagged, tuple.pendingWrites[0]?.value]) {
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(Object.hasOwn(value as object, "__proto__")).toBe(true);
      expect((value as Record<string, unknown>).polluted).toBeUndefined();
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).bad).toBeUndefined();
    expect((tuple.values.tagged as { when: unknown }).when).toEqual(new Date(0));
  });

  it("stores a large value (2 MiB) intact", async () => {
    const threadId = uniqueThreadId();
    const big = { blob: "x".repeat(2 * 1024 * 1024), list: Array.from({ length: 5_000 }, (_, i) => ({ i })) };
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { big } });
    expect((await latest(ctx.saver, threadId)).values.big).toEqual(big);
  });

  it("refuses a value that is not plain data and leaves storage unchanged", async () => {
    const threadId = uniqueThreadId();
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    const bytes = await ctx.saver.storedBytes?.(threadId);
    class Custom {
      x = 1;
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const bad: [string, () => ReturnType<typeof stepRequest>][] = [
      [
        "a function in a value",
        () => stepRequest({ threadId, id: ctx.nextId(), parent: first, full: { a: 2, f: () => 1 } }),
      ],
      [
        "a class instance",
        () => stepRequest({ threadId, id: ctx.nextId(), parent: first, full: { a: 2, c: new Custom() } }),
      ],
      ["a cycle", () => stepRequest({ threadId, id: ctx.nextId(), parent: first, full: { a: 2, cyclic } })],
      [
        "a symbol in a write",
        () =>
          stepRequest({
            threadId,
            id: ctx.nextId(),
            parent: first,
            full: { a: 2 },
            writes: [{ taskId: "t", channel: "a", value: Symbol("s") }],
          }),
      ],
      [
        "a function in metadata",
        () => stepRequest({ threadId, id: ctx.nextId(), parent: first, full: { a: 2 }, metadata: { hook: () => 1 } }),
      ],
    ];
    for (const [label, make] of bad) {
      const error = await ctx.saver.put(make()).catch((e) => e);
      expect(error, label).toBeInstanceOf(TrellisError);
      expect(error.code, label).toBe("NOT_PLAIN_DATA");
    }
    const write = await ctx.saver
      .putWrites({ threadId, checkpointId: first.id }, [
        { taskId: "ok", channel: "a", value: 1 },
        { taskId: "bad", channel: "a", value: Number.NaN },
      ])
      .catch((e) => e);
    expect(write.code).toBe("NOT_PLAIN_DATA");
    const history = await collect(ctx.saver.list(threadId));
    expect(history.map((t) => t.checkpoint.id)).toEqual([first.id]);
    expect(history[0]?.values).toEqual({ a: 1 });
    expect(history[0]?.pendingWrites).toEqual([]);
    expect(await ctx.saver.storedBytes?.(threadId)).toBe(bytes);
  });
}
