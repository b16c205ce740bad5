import { expect, it } from "vitest";
import { jsonSerializer } from "../serializer.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, uniqueThreadId } from "./fixtures.js";

/**
 * A value shared by several rows of a thread is stored once: passed from key to key, written again
 * unchanged, recorded both as a pending write and as the channel's value. Measured with `storedBytes`
 * (each case checks the saver has it). @internal
 */
export function sharedValueCases(ctx: SaverTestContext): void {
  /** ~64 KB of JSON; every copy stored would add its full size. */
  const big = (label: string) => ({
    label,
    rows: Array.from({ length: 800 }, (_, i) => `${label}-row-${i}-`.repeat(4)),
  });
  const size = (value: unknown) => Buffer.byteLength(jsonSerializer.serialize(value));

  async function bytes(threadId: string): Promise<number> {
    expect(ctx.saver.storedBytes, "the saver must report storedBytes").toBeTypeOf("function");
    return (await ctx.saver.storedBytes?.(threadId)) ?? 0;
  }

  it("stores a value written to two channels and as a pending write once", async () => {
    const threadId = uniqueThreadId();
    const value = big("shared");
    await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      full: { a: value, b: value, c: structuredClone(value) },
      writes: [{ taskId: "t1", channel: "a", value }],
    });
    expect(await bytes(threadId)).toBeLessThan(1.5 * size(value));
    const tuple = await latest(ctx.saver, threadId);
    expect(tuple.values).toEqual({ a: value, b: value, c: value });
    expect(tuple.values.a).not.toBe(tuple.values.b);
    expect(tuple.pendingWrites).toEqual([{ taskId: "t1", channel: "a", value }]);
  });

  it("reads back exactly values that hold one object several times, in one value and across a put", async () => {
    const threadId = uniqueThreadId();
    const value = big("nested");
    // Deep enough that the request's texts are joined from their members' (see RequestTexts).
    const list = [{ value }, { value }, [{ value }]];
    const holder = { first: list, again: { list }, n: 1 };
    await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      full: { list, holder, copy: structuredClone(holder) },
      writes: [{ taskId: "t1", channel: "list", value: list }],
    });
    const tuple = await latest(ctx.saver, threadId);
    expect(tuple.values).toEqual({ list, holder, copy: holder });
    expect(tuple.pendingWrites).toEqual([{ taskId: "t1", channel: "list", value: list }]);
  });

  it("stores a value rewritten unchanged, or moved to another key, once across steps: O(1) in steps", async () => {
    const threadId = uniqueThreadId();
    const value = big("kept");
    let parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { doc: value, n: 0 } });
    for (let i = 1; i <= 20; i++) {
      // An equal copy, as a node that rebuilds the value would write it; every 5th step moves it.
      const key = i % 5 === 0 ? `moved${i}` : "doc";
      parent = await putStep(ctx.saver, {
        threadId,
        id: ctx.nextId(),
        parent,
        full: { [key]: structuredClone(value), n: i },
        writes: [{ taskId: `t${i}`, channel: key, value }],
      });
    }
    expect(await bytes(threadId)).toBeLessThan(1.5 * size(value));
    const history = await collect(ctx.saver.list(threadId));
    expect(history).toHaveLength(21);
    for (const tuple of history) expect(tuple.values.doc).toEqual(value);
    expect((await latest(ctx.saver, threadId)).values.moved20).toEqual(value);
  });

  it("shares a value across namespaces and keeps it readable after the checkpoint that first stored it is pruned", async () => {
    const threadId = uniqueThreadId();
    const value = big("nested");
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: value } });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), namespace: "sub", full: { input: value } });
    const second = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { b: value } });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: second, full: { a: "small" } });
    expect(await bytes(threadId)).toBeLessThan(1.5 * size(value));

    await ctx.saver.prune(threadId, { keepLast: 1 });
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: "small", b: value });
    expect((await latest(ctx.saver, threadId, "sub")).values).toEqual({ input: value });
  });

  it("frees a shared value once no row refers to it (prune, deleteThread)", async () => {
    const threadId = uniqueThreadId();
    const value = big("dropped");
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: value, b: value } });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { a: "x", b: "y" } });
    expect(await bytes(threadId)).toBeGreaterThan(size(value));

    await ctx.saver.prune(threadId, { keepLast: 1 });
    expect(await bytes(threadId)).toBeLessThan(size(value) / 4);
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: "x", b: "y" });

    const other = uniqueThreadId();
    await putStep(ctx.saver, { threadId: other, id: ctx.nextId(), full: { a: value } });
    await ctx.saver.deleteThread(other);
    expect(await bytes(other)).toBe(0);
  });

  it("keeps threads apart: the same value in two threads is readable from each after the other is deleted", async () => {
    const value = big("twin");
    const [one, two] = [uniqueThreadId(), uniqueThreadId()];
    await putStep(ctx.saver, { threadId: one, id: ctx.nextId(), full: { v: value } });
    await putStep(ctx.saver, { threadId: two, id: ctx.nextId(), full: { v: value } });
    await ctx.saver.deleteThread(one);
    expect((await latest(ctx.saver, two)).values).toEqual({ v: value });
    expect(await bytes(two)).toBeGreaterThan(size(value) / 2);
  });
}
