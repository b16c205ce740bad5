import { expect, it } from "vitest";
import { LeaseError } from "../errors.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, uniqueThreadId } from "./fixtures.js";

/** TTL, sweeping and deleteThread, on the suite's manual clock. @internal */
export function retentionCases(ctx: SaverTestContext): void {
  it("expires a thread once its TTL passes with no put; puts and writes restart the count", async () => {
    const threadId = uniqueThreadId();
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    await ctx.saver.setTtl(threadId, 60_000);
    await ctx.clock.advance(50_000);
    const second = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { a: 2 } });
    await ctx.clock.advance(50_000);
    expect((await latest(ctx.saver, threadId)).checkpoint.id).toBe(second.id);
    await ctx.saver.putWrites({ threadId, checkpointId: second.id }, [{ taskId: "t", channel: "a", value: 3 }]);
    await ctx.clock.advance(59_000);
    expect((await latest(ctx.saver, threadId)).pendingWrites).toHaveLength(1);
    await ctx.clock.advance(2_000);
    expect(await ctx.saver.get({ threadId })).toBeUndefined();
    expect(await ctx.saver.get({ threadId, checkpointId: first.id })).toBeUndefined();
    expect(await collect(ctx.saver.list(threadId))).toEqual([]);
    if (ctx.saver.storedBytes) expect(await ctx.saver.storedBytes(threadId)).toBe(0);
  });

  it("sweepExpired deletes exactly the threads whose TTL ran out", async () => {
    const gone = uniqueThreadId();
    const young = uniqueThreadId();
    const forever = uniqueThreadId();
    for (const threadId of [gone, young, forever]) {
      await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { who: threadId } });
    }
    await ctx.saver.setTtl(gone, 1_000);
    await ctx.saver.setTtl(young, 10_000);
    await ctx.clock.advance(5_000);
    const swept = await ctx.saver.sweepExpired();
    if (ctx.options.nativeTtl) expect(swept).toBeGreaterThanOrEqual(0);
    else expect(swept).toBeGreaterThanOrEqual(1);
    expect(await ctx.saver.get({ threadId: gone })).toBeUndefined();
    if (ctx.saver.storedBytes) expect(await ctx.saver.storedBytes(gone)).toBe(0);
    expect((await latest(ctx.saver, young)).values).toEqual({ who: young });
    expect((await latest(ctx.saver, forever)).values).toEqual({ who: forever });
  });

  it("setTtl(null) removes the limit; setTtl on an unknown thread does nothing", async () => {
    const threadId = uniqueThreadId();
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    await ctx.saver.setTtl(threadId, 1_000);
    await ctx.saver.setTtl(threadId, null);
    await ctx.clock.advance(10_000_000);
    await ctx.saver.sweepExpired();
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: 1 });

    const unknown = uniqueThreadId();
    await ctx.saver.setTtl(unknown, 1_000);
    expect(await ctx.saver.get({ threadId: unknown })).toBeUndefined();
    await putStep(ctx.saver, { threadId: unknown, id: ctx.nextId(), full: { a: 2 } });
    await ctx.clock.advance(5_000);
    expect((await latest(ctx.saver, unknown)).values).toEqual({ a: 2 });
  });

  it("a put after expiry starts the thread afresh, and the old lease is gone with it", async () => {
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 1_000_000);
    const old = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: "old" }, lease });
    await ctx.saver.setTtl(threadId, 1_000);
    await ctx.clock.advance(2_000);
    const stale = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: "x" }, lease }).catch((e) => e);
    expect(stale).toBeInstanceOf(LeaseError);
    expect(stale.code).toBe("LEASE_LOST");
    const other = await ctx.saver.acquireLease(threadId, "w2", 1_000);
    const fresh = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: "new" }, lease: other });
    expect((await collect(ctx.saver.list(threadId))).map((t) => t.checkpoint.id)).toEqual([fresh.id]);
    expect(await ctx.saver.get({ threadId, checkpointId: old.id })).toBeUndefined();
    await ctx.clock.advance(10_000_000);
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: "new" });
  });

  it("deleteThread removes every namespace, write and the lease, and nothing else", async () => {
    const threadId = uniqueThreadId();
    const neighbour = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const root = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      full: { m: ["a"] },
      writes: [{ taskId: "t", channel: "m", value: 1 }],
      lease,
    });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: root, append: { m: ["b"] }, lease });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), namespace: "sub:1", full: { s: 1 }, lease });
    await putStep(ctx.saver, { threadId: neighbour, id: ctx.nextId(), full: { n: 1 } });
    const neighbourBytes = await ctx.saver.storedBytes?.(neighbour);

    await ctx.saver.deleteThread(threadId);

    expect(await ctx.saver.get({ threadId })).toBeUndefined();
    expect(await ctx.saver.get({ threadId, namespace: "sub:1" })).toBeUndefined();
    expect(await ctx.saver.get({ threadId, checkpointId: root.id })).toBeUndefined();
    expect(await collect(ctx.saver.list(threadId))).toEqual([]);
    if (ctx.saver.storedBytes) expect(await ctx.saver.storedBytes(threadId)).toBe(0);
    // The lease went with the thread: another writer may take it at once, and the old one is void.
    const next = await ctx.saver.acquireLease(threadId, "w2", 60_000);
    expect(next.owner).toBe("w2");
    const refused = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { m: [] }, lease }).catch((e) => e);
    expect(refused.code).toBe("LEASE_LOST");
    expect((await latest(ctx.saver, neighbour)).values).toEqual({ n: 1 });
    expect(await ctx.saver.storedBytes?.(neighbour)).toBe(neighbourBytes);
    await ctx.saver.deleteThread(uniqueThreadId());
  });
}
