import { expect, it } from "vitest";
import { TrellisError } from "../errors.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, stepRequest, uniqueThreadId } from "./fixtures.js";

/** get, put, putWrites, list and namespaces. @internal */
export function basicCases(ctx: SaverTestContext): void {
  it("knows nothing of a thread it never saw", async () => {
    const threadId = uniqueThreadId();
    expect(await ctx.saver.get({ threadId })).toBeUndefined();
    expect(await ctx.saver.get({ threadId, checkpointId: ctx.nextId() })).toBeUndefined();
    expect(await collect(ctx.saver.list(threadId))).toEqual([]);
    if (ctx.saver.storedBytes) expect(await ctx.saver.storedBytes(threadId)).toBe(0);
  });

  it("puts a checkpoint and gets it back whole, as the latest and by id", async () => {
    const threadId = uniqueThreadId();
    const request = stepRequest({
      threadId,
      id: ctx.nextId(),
      full: { topic: "tides", count: 1, nothing: null },
      metadata: { source: "input", runId: "r1", writes: { __input__: ["topic"] } },
    });
    request.checkpoint.next = [{ node: "draft" }, { node: "fanout", send: { arg: { at: new Date(0), n: 1 } } }];
    request.checkpoint.barriers = { "join:a+b": ["a"] };
    await ctx.saver.put(request);
    const expected = { checkpoint: request.checkpoint, values: { topic: "tides", count: 1, nothing: null } };
    expect(await ctx.saver.get({ threadId })).toEqual({ ...expected, pendingWrites: [] });
    expect(await ctx.saver.get({ threadId, checkpointId: request.checkpoint.id })).toEqual({
      ...expected,
      pendingWrites: [],
    });
    expect(await ctx.saver.get({ threadId, namespace: "" })).toEqual({ ...expected, pendingWrites: [] });
  });

  it("keeps a channel's old version when a later checkpoint does not change it", async () => {
    const threadId = uniqueThreadId();
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1, b: "x" } });
    const second = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { b: "y" } });
    const third = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: second, full: { c: [1] } });
    expect(third.channelVersions).toEqual({ a: first.id, b: second.id, c: third.id });
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: 1, b: "y", c: [1] });
    expect((await ctx.saver.get({ threadId, checkpointId: first.id }))?.values).toEqual({ a: 1, b: "x" });
    expect((await ctx.saver.get({ threadId, checkpointId: second.id }))?.values).toEqual({ a: 1, b: "y" });
  });

  it("stores the writes given to put with the checkpoint, in order", async () => {
    const threadId = uniqueThreadId();
    const writes = [
      { taskId: "t2", channel: "b", value: { x: 1 } },
      { taskId: "t1", channel: "a", value: "first" },
      { taskId: "t1", channel: "__interrupt__", value: [{ id: "i1", value: "approve?" }] },
    ];
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 0 }, writes });
    expect((await ctx.saver.get({ threadId, checkpointId: cp.id }))?.pendingWrites).toEqual(writes);
  });

  it("treats a repeated put of the same checkpoint as one checkpoint", async () => {
    const threadId = uniqueThreadId();
    const request = stepRequest({ threadId, id: ctx.nextId(), full: { a: 1 }, writes: [w("t", "a", 1)] });
    await ctx.saver.put(request);
    await ctx.saver.put(request);
    const history = await collect(ctx.saver.list(threadId));
    expect(history.map((t) => t.checkpoint.id)).toEqual([request.checkpoint.id]);
    expect(history[0]?.pendingWrites).toEqual([w("t", "a", 1)]);
  });

  it("refuses writes for a checkpoint that does not exist", async () => {
    const threadId = uniqueThreadId();
    const error = await ctx.saver.putWrites({ threadId, checkpointId: "nope" }, [w("t", "a", 1)]).catch((e) => e);
    expect(error).toBeInstanceOf(TrellisError);
    expect(error.code).toBe("CHECKPOINT_NOT_FOUND");
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    const again = await ctx.saver.putWrites({ threadId, checkpointId: "nope" }, [w("t", "a", 1)]).catch((e) => e);
    expect(again.code).toBe("CHECKPOINT_NOT_FOUND");
  });

  it("appends pending writes in order and replaces a (task, channel) in place", async () => {
    const threadId = uniqueThreadId();
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 0 } });
    const ref = { threadId, checkpointId: cp.id };
    await ctx.saver.putWrites(ref, [w("task-b", "a", 1), w("task-a", "a", 2)]);
    await ctx.saver.putWrites(ref, [w("task-c", "x", 3)]);
    await ctx.saver.putWrites(ref, [w("task-b", "a", "retried"), w("task-b", "b", 4)]);
    expect((await latest(ctx.saver, threadId)).pendingWrites).toEqual([
      w("task-b", "a", "retried"),
      w("task-a", "a", 2),
      w("task-c", "x", 3),
      w("task-b", "b", 4),
    ]);
  });

  it("keeps the first position and the last value when one call repeats a (task, channel)", async () => {
    const threadId = uniqueThreadId();
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 0 } });
    const ref = { threadId, checkpointId: cp.id };
    await ctx.saver.putWrites(ref, [w("t1", "a", 1), w("t2", "a", 2), w("t1", "a", 3)]);
    expect((await latest(ctx.saver, threadId)).pendingWrites).toEqual([w("t1", "a", 3), w("t2", "a", 2)]);
  });

  it("keeps pending writes with their own checkpoint", async () => {
    const threadId = uniqueThreadId();
    const first = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 0 } });
    const second = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: first, full: { a: 1 } });
    await ctx.saver.putWrites({ threadId, checkpointId: first.id }, [w("old", "a", "late")]);
    expect((await ctx.saver.get({ threadId, checkpointId: first.id }))?.pendingWrites).toEqual([w("old", "a", "late")]);
    expect((await ctx.saver.get({ threadId, checkpointId: second.id }))?.pendingWrites).toEqual([]);
  });

  it("lists newest first, with limit, before and a metadata filter", async () => {
    const threadId = uniqueThreadId();
    let parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { n: 0 } });
    const ids = [parent.id];
    for (let i = 1; i < 7; i++) {
      const source = i % 3 === 0 ? "update" : "loop";
      const metadata = { source, tag: i % 2 === 0 ? "even" : "odd", nested: { k: [i % 2] } } as const;
      parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent, full: { n: i }, metadata });
      ids.push(parent.id);
    }
    const newest = [...ids].reverse();
    const listed = await collect(ctx.saver.list(threadId));
    expect(listed.map((t) => t.checkpoint.id)).toEqual(newest);
    expect(listed.map((t) => t.values.n)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(ids2(await collect(ctx.saver.list(threadId, { limit: 2 })))).toEqual(newest.slice(0, 2));
    expect(ids2(await collect(ctx.saver.list(threadId, { before: ids[4] as string })))).toEqual(newest.slice(3));
    expect(ids2(await collect(ctx.saver.list(threadId, { before: ids[4] as string, limit: 2 })))).toEqual(
      newest.slice(3, 5),
    );
    const updates = await collect(ctx.saver.list(threadId, { filter: { source: "update" } }));
    expect(updates.map((t) => t.values.n)).toEqual([6, 3]);
    const evenLoops = await collect(ctx.saver.list(threadId, { filter: { source: "loop", tag: "even" } }));
    expect(evenLoops.map((t) => t.values.n)).toEqual([4, 2]);
    const nested = await collect(ctx.saver.list(threadId, { filter: { nested: { k: [1] } }, limit: 2 }));
    expect(nested.map((t) => t.values.n)).toEqual([5, 3]);
    expect(await collect(ctx.saver.list(threadId, { filter: { tag: "none" } }))).toEqual([]);
    expect(await collect(ctx.saver.list(threadId, { limit: 0 }))).toEqual([]);
  });

  it("lists a long history in full (no page size leaks out)", async () => {
    const threadId = uniqueThreadId();
    let parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { n: 0 } });
    for (let i = 1; i < 260; i++)
      parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent, full: { n: i } });
    const listed = await collect(ctx.saver.list(threadId));
    expect(listed).toHaveLength(260);
    expect(listed[0]?.values.n).toBe(259);
    expect(listed[259]?.values.n).toBe(0);
    const stepZero = await collect(ctx.saver.list(threadId, { filter: { step: 0 } }));
    expect(stepZero.map((t) => t.values.n)).toEqual([1]);
  });

  it("keeps namespaces apart: latest, history, values and writes", async () => {
    const threadId = uniqueThreadId();
    const root = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: "root" } });
    const subId = ctx.nextId();
    // The same channel name and version string in a second namespace must not collide.
    const sub = await putStep(ctx.saver, { threadId, id: subId, namespace: "quiz:1", full: { a: "sub" } });
    await ctx.saver.put(
      stepRequest({ threadId, id: subId, namespace: "quiz:2", full: { a: "other" }, writes: [w("q", "a", 2)] }),
    );
    await ctx.saver.putWrites({ threadId, namespace: "quiz:1", checkpointId: sub.id }, [w("q", "a", 1)]);
    expect((await latest(ctx.saver, threadId)).checkpoint.id).toBe(root.id);
    expect((await latest(ctx.saver, threadId)).values).toEqual({ a: "root" });
    expect((await latest(ctx.saver, threadId, "quiz:1")).values).toEqual({ a: "sub" });
    expect((await latest(ctx.saver, threadId, "quiz:1")).pendingWrites).toEqual([w("q", "a", 1)]);
    expect((await latest(ctx.saver, threadId, "quiz:2")).values).toEqual({ a: "other" });
    expect((await latest(ctx.saver, threadId, "quiz:2")).pendingWrites).toEqual([w("q", "a", 2)]);
    expect(await ctx.saver.get({ threadId, namespace: "quiz:3" })).toBeUndefined();
    expect(await ctx.saver.get({ threadId, checkpointId: sub.id })).toBeUndefined();
    expect(ids2(await collect(ctx.saver.list(threadId)))).toEqual([root.id]);
    expect(ids2(await collect(ctx.saver.list(threadId, { namespace: "quiz:1" })))).toEqual([sub.id]);
    const error = await ctx.saver.putWrites({ threadId, checkpointId: sub.id }, [w("q", "a", 9)]).catch((e) => e);
    expect(error.code).toBe("CHECKPOINT_NOT_FOUND");
  });

  it("keeps threads apart", async () => {
    const one = uniqueThreadId();
    const two = uniqueThreadId();
    const id = ctx.nextId();
    await putStep(ctx.saver, { threadId: one, id, full: { who: "one" } });
    await putStep(ctx.saver, { threadId: two, id, full: { who: "two" } });
    expect((await latest(ctx.saver, one)).values).toEqual({ who: "one" });
    expect((await latest(ctx.saver, two)).values).toEqual({ who: "two" });
    await ctx.saver.deleteThread(one);
    expect(await ctx.saver.get({ threadId: one })).toBeUndefined();
    expect((await latest(ctx.saver, two)).values).toEqual({ who: "two" });
  });
}

function w(taskId: string, channel: string, value: unknown) {
  return { taskId, channel, value };
}

function ids2(tuples: { checkpoint: { id: string } }[]): string[] {
  return tuples.map((t) => t.checkpoint.id);
}
