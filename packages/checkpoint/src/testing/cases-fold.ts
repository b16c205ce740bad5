import { expect, it, type TestContext } from "vitest";
import { LeaseError } from "../errors.js";
import type { CheckpointSaver } from "../saver.js";
import type { CommitRequest, LeasedTuple, PutRequest } from "../types.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, stepRequest, uniqueThreadId } from "./fixtures.js";

type Commit = (request: CommitRequest) => Promise<void>;
type LeaseAndGet = (
  ref: { threadId: string; checkpointId?: string },
  owner: string,
  ttl: number,
) => Promise<LeasedTuple>;

/**
 * The optional folds of the contract: `acquireLeaseAndGet` (the lease and the read in one transaction)
 * and `commit` (writes, a put and the lease's release in one), and `putNow` (a put done before it
 * returns, for a saver in memory). The first two are skipped, and say so, for a saver without the
 * method (the runtime falls back to the separate calls for it); `putNow`'s rules are checked through
 * `put` on a saver without it, since that is the fallback. @internal
 */
export function foldCases(ctx: SaverTestContext): void {
  const leaseAndGet = (test: TestContext): LeaseAndGet => {
    const saver = ctx.saver;
    if (!saver.acquireLeaseAndGet) test.skip("the saver has no acquireLeaseAndGet");
    return (saver.acquireLeaseAndGet as NonNullable<CheckpointSaver["acquireLeaseAndGet"]>).bind(saver);
  };
  const commitOf = (test: TestContext, saver: CheckpointSaver = ctx.saver): Commit => {
    if (!saver.commit) test.skip("the saver has no commit");
    return (saver.commit as Commit).bind(saver);
  };
  /** Whether `owner` could take the thread now (taking it, then giving it back). */
  const free = async (threadId: string, owner: string) => {
    try {
      await ctx.saver.releaseLease(await ctx.saver.acquireLease(threadId, owner, 1_000));
      return true;
    } catch (error) {
      if (error instanceof LeaseError && error.code === "THREAD_BUSY") return false;
      throw error;
    }
  };

  it("acquireLeaseAndGet takes the lease as acquireLease does and reads what get reads", async (test) => {
    const fold = leaseAndGet(test);
    const threadId = uniqueThreadId();
    const now = ctx.clock.now();
    expect(await fold({ threadId }, "w1", 30_000)).toEqual({
      lease: { threadId, owner: "w1", epoch: 1, expiresAt: now + 30_000 },
      tuple: undefined,
    });
    expect(await ctx.saver.get({ threadId })).toBeUndefined();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 30_000);
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease });
    const second = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { a: 2 }, lease });
    await ctx.saver.putWrites({ threadId, checkpointId: second.id }, [{ taskId: "t", channel: "a", value: 3 }], lease);
    await ctx.saver.releaseLease(lease);
    const head = await fold({ threadId }, "w2", 30_000);
    expect(head.lease.epoch).toBe(lease.epoch + 1);
    expect(head.tuple).toEqual(await ctx.saver.get({ threadId }));
    expect(head.tuple?.checkpoint.id).toBe(second.id);
    // the same owner keeps its epoch; an explicit checkpoint is read as get reads it
    const older = await fold({ threadId, checkpointId: first.id }, "w2", 30_000);
    expect(older.lease.epoch).toBe(head.lease.epoch);
    expect(older.tuple).toEqual(await ctx.saver.get({ threadId, checkpointId: first.id }));
  });

  it("acquireLeaseAndGet on a busy thread throws THREAD_BUSY and changes nothing", async (test) => {
    const fold = leaseAndGet(test);
    const threadId = uniqueThreadId();
    const held = await ctx.saver.acquireLease(threadId, "w1", 30_000);
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease: held });
    const bytes = await ctx.saver.storedBytes?.(threadId);
    await ctx.clock.advance(1_000);
    const busy = await fold({ threadId }, "w2", 30_000).catch((e) => e);
    expect(busy).toBeInstanceOf(LeaseError);
    expect(busy.code).toBe("THREAD_BUSY");
    expect(busy.details.threadId).toBe(threadId);
    // the holder's lease is as it was: still current, same epoch, same expiry
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: cp, full: { a: 2 }, lease: held });
    expect(await ctx.saver.renewLease(held, 30_000)).toEqual({ ...held, expiresAt: ctx.clock.now() + 30_000 });
    expect(await ctx.saver.storedBytes?.(threadId)).toBeGreaterThan(bytes ?? -1);
  });

  it("two writers racing acquireLeaseAndGet: exactly one gets the thread", async (test) => {
    const fold = leaseAndGet(test);
    const peer = await ctx.peer();
    if (!peer.acquireLeaseAndGet) test.skip("the peer has no acquireLeaseAndGet");
    const other = (peer.acquireLeaseAndGet as LeaseAndGet).bind(peer);
    const threadId = uniqueThreadId();
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    const results = await Promise.allSettled([fold({ threadId }, "a", 60_000), other({ threadId }, "b", 60_000)]);
    const won = results.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<LeasedTuple>[];
    const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(won[0]?.value.tuple?.values).toEqual({ a: 1 });
    expect(lost[0]?.reason.code).toBe("THREAD_BUSY");
  });

  it("commit stores a put and gives the lease back in one go", async (test) => {
    const commit = commitOf(test);
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease });
    const last = stepRequest({ threadId, id: ctx.nextId(), parent: first, full: { a: 2 }, writes: [w("t", "a", 9)] });
    await commit({ put: last, lease, release: true });
    const head = await latest(ctx.saver, threadId);
    expect(head.checkpoint).toEqual(last.checkpoint);
    expect(head.values).toEqual({ a: 2 });
    expect(head.pendingWrites).toEqual([w("t", "a", 9)]);
    // released: the next owner takes the thread at once, and the old lease writes nothing more
    const next = await ctx.saver.acquireLease(threadId, "w2", 60_000);
    expect(next.epoch).toBe(lease.epoch + 1);
    const refused = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: last.checkpoint, lease }).catch(
      (e) => e,
    );
    expect(refused.code).toBe("LEASE_LOST");
  });

  it("commit records writes against the checkpoint a put follows, with the put", async (test) => {
    const commit = commitOf(test);
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const paused = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease });
    await ctx.saver.putWrites({ threadId, checkpointId: paused.id }, [w("ask", "__interrupt__", ["q?"])], lease);
    const next = stepRequest({ threadId, id: ctx.nextId(), parent: paused, full: { a: 2 } });
    const resume = w("ask", "__resume__", { i1: "yes" });
    await commit({ writes: { ref: { threadId, checkpointId: paused.id }, writes: [resume] }, put: next, lease });
    const history = await collect(ctx.saver.list(threadId));
    expect(history.map((t) => t.checkpoint.id)).toEqual([next.checkpoint.id, paused.id]);
    expect(history[1]?.pendingWrites).toEqual([w("ask", "__interrupt__", ["q?"]), resume]);
    expect(history[0]?.pendingWrites).toEqual([]);
    // not released: the lease is still this writer's
    expect(await free(threadId, "w2")).toBe(false);
    // writes and release alone (a run that ends on a pause)
    await commit({
      writes: { ref: { threadId, checkpointId: next.checkpoint.id }, writes: [w("b", "x", 1)] },
      lease,
      release: true,
    });
    expect((await latest(ctx.saver, threadId)).pendingWrites).toEqual([w("b", "x", 1)]);
    expect(await free(threadId, "w2")).toBe(true);
  });

  it("a commit with a lost lease is refused as put is: LEASE_LOST, nothing stored, nothing released", async (test) => {
    const commit = commitOf(test);
    const threadId = uniqueThreadId();
    const stale = await ctx.saver.acquireLease(threadId, "w1", 5_000);
    const base = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease: stale });
    await ctx.clock.advance(6_000);
    const other = await ctx.peer();
    const fresh = await other.acquireLease(threadId, "w2", 60_000);
    const bytes = await ctx.saver.storedBytes?.(threadId);
    const put = stepRequest({ threadId, id: ctx.nextId(), parent: base, full: { a: 2 } });
    const plain = await ctx.saver.put({ ...put, lease: stale }).catch((e) => e);
    const folded = await commit({
      writes: { ref: { threadId, checkpointId: base.id }, writes: [w("t", "a", 5)] },
      put,
      lease: stale,
      release: true,
    }).catch((e) => e);
    for (const refused of [plain, folded]) {
      expect(refused).toBeInstanceOf(LeaseError);
      expect(refused.code).toBe("LEASE_LOST");
      expect(refused.details.threadId).toBe(threadId);
    }
    expect(folded.message).toBe(plain.message);
    const head = await latest(ctx.saver, threadId);
    expect(head.checkpoint.id).toBe(base.id);
    expect(head.pendingWrites).toEqual([]);
    expect(await ctx.saver.storedBytes?.(threadId)).toBe(bytes);
    // the new holder's lease was not released by the stale writer's commit
    expect(await other.renewLease(fresh, 60_000)).toMatchObject({ owner: "w2", epoch: fresh.epoch });
    expect(await free(threadId, "w3")).toBe(false);
  });

  it("a commit is all or nothing: a missing checkpoint or a value that cannot be stored leaves everything as it was", async (test) => {
    const commit = commitOf(test);
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const base = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease });
    const bytes = await ctx.saver.storedBytes?.(threadId);
    const put = stepRequest({ threadId, id: ctx.nextId(), parent: base, full: { a: 2 } });
    const missing = await commit({
      writes: { ref: { threadId, checkpointId: ctx.nextId() }, writes: [w("t", "a", 1)] },
      put,
      lease,
      release: true,
    }).catch((e) => e);
    expect(missing.code).toBe("CHECKPOINT_NOT_FOUND");
    const bad = stepRequest({ threadId, id: ctx.nextId(), parent: base, full: { a: () => 1 } });
    const unstorable = await commit({
      writes: { ref: { threadId, checkpointId: base.id }, writes: [w("t", "a", 1)] },
      put: bad,
      lease,
      release: true,
    }).catch((e) => e);
    expect(unstorable.code).toBe("NOT_PLAIN_DATA");
    const head = await latest(ctx.saver, threadId);
    expect(head.checkpoint.id).toBe(base.id);
    expect(head.pendingWrites).toEqual([]);
    expect(await ctx.saver.storedBytes?.(threadId)).toBe(bytes);
    // the lease was not given back by either refused commit
    expect(await free(threadId, "w2")).toBe(false);
    expect(await ctx.saver.renewLease(lease, 60_000)).toMatchObject({ epoch: lease.epoch });
  });

  it("a commit whose parts name different threads, or that releases no lease, is refused before it starts", async (test) => {
    const commit = commitOf(test);
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const elsewhere = stepRequest({ threadId: uniqueThreadId(), id: ctx.nextId(), full: { a: 1 } });
    const mixed = await commit({ put: elsewhere, lease, release: true }).catch((e) => e);
    expect(mixed.code).toBe("INVALID_ARGUMENT");
    const noLease = await commit({ put: stepRequest({ threadId, id: ctx.nextId() }), release: true }).catch((e) => e);
    expect(noLease.code).toBe("INVALID_ARGUMENT");
    expect(await ctx.saver.get({ threadId })).toBeUndefined();
    expect(await ctx.saver.get({ threadId: elsewhere.checkpoint.threadId })).toBeUndefined();
    expect(await free(threadId, "w2")).toBe(false);
  });

  it("putNow stores what put stores before it returns, and throws what put rejects with, storing nothing (without putNow: put does)", async () => {
    const saver = ctx.saver;
    // A saver without putNow is driven through put, the runtime's fallback: the same rules hold.
    const store = async (request: PutRequest): Promise<void> => {
      if (!saver.putNow) return saver.put(request);
      expect(saver.putNow(request)).toBeUndefined();
    };
    const threadId = uniqueThreadId();
    const stale = await saver.acquireLease(threadId, "w1", 5_000);
    const first = stepRequest({ threadId, id: ctx.nextId(), full: { a: 1 }, lease: stale });
    await store(first);
    const stored = await latest(saver, threadId);
    expect(stored.checkpoint).toEqual(first.checkpoint);
    expect(stored.values).toEqual({ a: 1 });
    const bytes = await saver.storedBytes?.(threadId);
    const unstorable = stepRequest({ threadId, id: ctx.nextId(), parent: first.checkpoint, full: { a: () => 1 } });
    await expect(store({ ...unstorable, lease: stale })).rejects.toMatchObject({ code: "NOT_PLAIN_DATA" });
    await ctx.clock.advance(6_000);
    const other = await ctx.peer();
    await other.acquireLease(threadId, "w2", 60_000);
    const late = stepRequest({ threadId, id: ctx.nextId(), parent: first.checkpoint, full: { a: 2 }, lease: stale });
    await expect(store(late)).rejects.toMatchObject({ code: "LEASE_LOST" });
    expect((await latest(saver, threadId)).checkpoint.id).toBe(first.checkpoint.id);
    expect(await saver.storedBytes?.(threadId)).toBe(bytes);
  });
}

function w(taskId: string, channel: string, value: unknown) {
  return { taskId, channel, value };
}
