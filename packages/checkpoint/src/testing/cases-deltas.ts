import { expect, it } from "vitest";
import { CorruptCheckpointError } from "../errors.js";
import type { Checkpoint } from "../types.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, uniqueThreadId } from "./fixtures.js";

/** Delta chains, time travel, forks and prune. @internal */
export function deltaCases(ctx: SaverTestContext): void {
  it("rebuilds an append-only channel from a full snapshot and its deltas, at every step", async () => {
    const threadId = uniqueThreadId();
    const expected = new Map<string, unknown[]>();
    let shown = [msg(0)];
    let parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { messages: shown, title: "t" } });
    expected.set(parent.id, shown);
    for (let i = 1; i <= 12; i++) {
      // A fresh full snapshot every 5 steps; deltas in between; every 4th step appends nothing (legal).
      const items = i % 4 === 0 ? [] : [msg(i)];
      shown = i % 5 === 0 ? range(0, i + 1).map(msg) : [...shown, ...items];
      const change = i % 5 === 0 ? { full: { messages: shown } } : { append: { messages: items } };
      parent = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent, ...change });
      expected.set(parent.id, shown);
    }
    expect((await latest(ctx.saver, threadId)).values.title).toBe("t");
    for (const [checkpointId, messages] of expected) {
      expect((await ctx.saver.get({ threadId, checkpointId }))?.values).toEqual({ messages, title: "t" });
    }
    expect([...expected.values()][3]).toEqual(range(0, 4).map(msg));
  });

  it("forks: two children of one checkpoint with different deltas rebuild independently", async () => {
    const threadId = uniqueThreadId();
    const root = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { messages: ["a"], n: 0 } });
    const mid = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: root, append: { messages: ["b"] } });
    const left = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: mid, append: { messages: ["L1"] } });
    const right = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      parent: mid,
      append: { messages: ["R1", "R2"] },
      full: { n: 1 },
      metadata: { source: "fork" },
    });
    const left2 = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: left, append: { messages: ["L2"] } });
    const right2 = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      parent: right,
      append: { messages: ["R3"] },
    });
    const get = async (cp: Checkpoint) => (await ctx.saver.get({ threadId, checkpointId: cp.id }))?.values;
    expect(await get(mid)).toEqual({ messages: ["a", "b"], n: 0 });
    expect(await get(left)).toEqual({ messages: ["a", "b", "L1"], n: 0 });
    expect(await get(left2)).toEqual({ messages: ["a", "b", "L1", "L2"], n: 0 });
    expect(await get(right)).toEqual({ messages: ["a", "b", "R1", "R2"], n: 1 });
    expect(await get(right2)).toEqual({ messages: ["a", "b", "R1", "R2", "R3"], n: 1 });
    // The newest checkpoint is the latest, whichever branch it is on.
    expect((await latest(ctx.saver, threadId)).checkpoint.id).toBe(right2.id);
    const forks = await collect(ctx.saver.list(threadId, { filter: { source: "fork" } }));
    expect(forks.map((t) => t.checkpoint.id)).toEqual([right.id]);
  });

  it("forks from an old checkpoint (time travel, then update) without disturbing the history", async () => {
    const threadId = uniqueThreadId();
    const chain: Checkpoint[] = [await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: [0] } })];
    for (let i = 1; i <= 5; i++) {
      chain.push(
        await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: chain.at(-1) ?? null, append: { log: [i] } }),
      );
    }
    const old = chain[2] as Checkpoint;
    const fork = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      parent: old,
      append: { log: ["edited"] },
      metadata: { source: "update" },
    });
    expect((await latest(ctx.saver, threadId)).values).toEqual({ log: [0, 1, 2, "edited"] });
    expect((await latest(ctx.saver, threadId)).checkpoint.parentId).toBe(old.id);
    expect((await ctx.saver.get({ threadId, checkpointId: (chain[5] as Checkpoint).id }))?.values).toEqual({
      log: [0, 1, 2, 3, 4, 5],
    });
    expect(fork.channelDepths.log).toBe(3);
  });

  it("reports a delta whose base is missing as corrupt, for that thread only", async () => {
    const threadId = uniqueThreadId();
    const other = uniqueThreadId();
    await putStep(ctx.saver, { threadId: other, id: ctx.nextId(), full: { messages: ["fine"] } });
    const ghost = { ...(await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { x: 1 } })) };
    ghost.channelVersions = { ...ghost.channelVersions, messages: "0-missing-version" };
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: ghost, append: { messages: ["orphan"] } });
    const error = await ctx.saver.get({ threadId }).catch((e) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect(error.code).toBe("CORRUPT_CHECKPOINT");
    expect(error.details.threadId).toBe(threadId);
    expect((await latest(ctx.saver, other)).values).toEqual({ messages: ["fine"] });
  });

  it("prune keeps the newest checkpoints of each namespace and every value they still need", async () => {
    const threadId = uniqueThreadId();
    let parent = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      full: { messages: ["m0"], constant: "set once" },
      writes: [{ taskId: "t0", channel: "x", value: "w" }],
    });
    const all = [parent];
    for (let i = 1; i < 10; i++) {
      const change =
        i === 5 ? { full: { messages: range(0, 6).map((k) => `m${k}`) } } : { append: { messages: [`m${i}`] } };
      parent = await putStep(ctx.saver, {
        threadId,
        id: ctx.nextId(),
        parent,
        ...change,
        writes: [{ taskId: `t${i}`, channel: "x", value: "w".repeat(200) }],
      });
      all.push(parent);
    }
    const sub = await putStep(ctx.saver, { threadId, id: ctx.nextId(), namespace: "sub", full: { s: [1] } });
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), namespace: "sub", parent: sub, append: { s: [2] } });
    const before = await ctx.saver.storedBytes?.(threadId);

    await ctx.saver.prune(threadId, { keepLast: 3 });

    const kept = await collect(ctx.saver.list(threadId));
    expect(kept.map((t) => t.checkpoint.id)).toEqual(
      all
        .slice(-3)
        .map((c) => c.id)
        .reverse(),
    );
    expect(kept[0]?.values).toEqual({ messages: range(0, 10).map((k) => `m${k}`), constant: "set once" });
    expect(kept[2]?.values).toEqual({ messages: range(0, 8).map((k) => `m${k}`), constant: "set once" });
    expect(kept[0]?.pendingWrites).toHaveLength(1);
    expect(await ctx.saver.get({ threadId, checkpointId: (all[0] as Checkpoint).id })).toBeUndefined();
    expect((await collect(ctx.saver.list(threadId, { namespace: "sub" }))).map((t) => t.values)).toEqual([
      { s: [1, 2] },
      { s: [1] },
    ]);
    if (before !== undefined) expect(await ctx.saver.storedBytes?.(threadId)).toBeLessThan(before);

    await ctx.saver.prune(threadId, { keepLast: 0 });
    const one = await collect(ctx.saver.list(threadId));
    expect(one.map((t) => t.checkpoint.id)).toEqual([parent.id]);
    expect(one[0]?.values.messages).toHaveLength(10);
    expect((await latest(ctx.saver, threadId, "sub")).values).toEqual({ s: [1, 2] });
    await ctx.saver.prune(uniqueThreadId(), { keepLast: 1 });
  });

  it("prune across forks keeps the newest checkpoints of every branch and their bases", async () => {
    const threadId = uniqueThreadId();
    const root = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: ["r"] } });
    const a1 = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: root, append: { log: ["a1"] } });
    const b1 = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: root, append: { log: ["b1"] } });
    const a2 = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: a1, append: { log: ["a2"] } });
    await ctx.saver.prune(threadId, { keepLast: 2 });
    expect((await collect(ctx.saver.list(threadId))).map((t) => t.checkpoint.id)).toEqual([a2.id, b1.id]);
    expect((await ctx.saver.get({ threadId, checkpointId: a2.id }))?.values).toEqual({ log: ["r", "a1", "a2"] });
    expect((await ctx.saver.get({ threadId, checkpointId: b1.id }))?.values).toEqual({ log: ["r", "b1"] });
    // The fork point can still be built upon after pruning.
    const b2 = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: b1, append: { log: ["b2"] } });
    expect((await ctx.saver.get({ threadId, checkpointId: b2.id }))?.values).toEqual({ log: ["r", "b1", "b2"] });
  });
}

function msg(i: number) {
  return { id: `m${i}`, role: i % 2 === 0 ? "user" : "assistant", content: `message ${i}` };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
