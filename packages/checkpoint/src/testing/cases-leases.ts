import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { LeaseError } from "../errors.js";
import { currentHolder, processLeaseOwner } from "../holder.js";
import { type LeaseHolder, leaseOwnerOf } from "../lease.js";
import { startLeaseExecution } from "../lease-executions.js";
import type { CheckpointSaver } from "../saver.js";
import type { Lease } from "../types.js";
import type { SaverTestContext } from "./conformance.js";
import { collect, latest, putStep, uniqueThreadId } from "./fixtures.js";

/** The per-thread lease: acquire, renew, release, racing writers and stale writers. @internal */
export function leaseCases(ctx: SaverTestContext): void {
  it("acquire gives epoch 1, the same owner keeps its epoch, another owner is told the thread is busy", async () => {
    const threadId = uniqueThreadId();
    const now = ctx.clock.now();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 30_000);
    expect(lease).toEqual({ threadId, owner: "w1", epoch: 1, expiresAt: now + 30_000 });
    await ctx.clock.advance(10_000);
    const again = await ctx.saver.acquireLease(threadId, "w1", 30_000);
    expect(again).toEqual({ threadId, owner: "w1", epoch: 1, expiresAt: now + 40_000 });
    const busy = await ctx.saver.acquireLease(threadId, "w2", 30_000).catch((e) => e);
    expect(busy).toBeInstanceOf(LeaseError);
    expect(busy.code).toBe("THREAD_BUSY");
    expect(busy.details.threadId).toBe(threadId);
    // A lease on a thread with no checkpoint yet leaves no checkpoint behind.
    expect(await ctx.saver.get({ threadId })).toBeUndefined();
  });

  it("an expired lease passes to the next owner with a higher epoch", async () => {
    const threadId = uniqueThreadId();
    const first = await ctx.saver.acquireLease(threadId, "w1", 1_000);
    await ctx.clock.advance(1_000);
    const second = await ctx.saver.acquireLease(threadId, "w2", 1_000);
    expect(second.epoch).toBe(first.epoch + 1);
    await ctx.clock.advance(5_000);
    // The first owner coming back after expiry is a new holder too.
    const third = await ctx.saver.acquireLease(threadId, "w1", 1_000);
    expect(third.epoch).toBe(second.epoch + 1);
  });

  it("renew extends a current lease and refuses a lost one", async () => {
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 1_000);
    await ctx.clock.advance(900);
    const renewed = await ctx.saver.renewLease(lease, 1_000);
    expect(renewed).toEqual({ ...lease, expiresAt: ctx.clock.now() + 1_000 });
    await ctx.clock.advance(900);
    const busy = await ctx.saver.acquireLease(threadId, "w2", 1_000).catch((e) => e);
    expect(busy.code).toBe("THREAD_BUSY");
    await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease: renewed });
    await ctx.clock.advance(200);
    const lost = await ctx.saver.renewLease(renewed, 1_000).catch((e) => e);
    expect(lost).toBeInstanceOf(LeaseError);
    expect(lost.code).toBe("LEASE_LOST");
    const never = await ctx.saver.renewLease({ ...lease, threadId: uniqueThreadId() }, 1_000).catch((e) => e);
    expect(never.code).toBe("LEASE_LOST");
  });

  it("release frees the thread at once; releasing a lost lease does nothing", async () => {
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 60_000);
    await ctx.saver.releaseLease(lease);
    const next = await ctx.saver.acquireLease(threadId, "w2", 60_000);
    expect(next.epoch).toBe(lease.epoch + 1);
    await ctx.saver.releaseLease(lease);
    const busy = await ctx.saver.acquireLease(threadId, "w3", 60_000).catch((e) => e);
    expect(busy.code).toBe("THREAD_BUSY");
    const refused = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease }).catch((e) => e);
    expect(refused.code).toBe("LEASE_LOST");
    await ctx.saver.releaseLease({ ...lease, threadId: uniqueThreadId() });
  });

  it("puts and writes with an expired lease are refused and store nothing", async () => {
    const threadId = uniqueThreadId();
    const lease = await ctx.saver.acquireLease(threadId, "w1", 1_000);
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 }, lease });
    await ctx.saver.putWrites({ threadId, checkpointId: cp.id }, [{ taskId: "t", channel: "a", value: 1 }], lease);
    await ctx.clock.advance(1_000);
    const bytes = await ctx.saver.storedBytes?.(threadId);
    const put = await putStep(ctx.saver, { threadId, id: ctx.nextId(), parent: cp, full: { a: 2 }, lease }).catch(
      (e) => e,
    );
    expect(put).toBeInstanceOf(LeaseError);
    expect(put.code).toBe("LEASE_LOST");
    const write = await ctx.saver
      .putWrites({ threadId, checkpointId: cp.id }, [{ taskId: "t2", channel: "a", value: 2 }], lease)
      .catch((e) => e);
    expect(write.code).toBe("LEASE_LOST");
    const tuple = await latest(ctx.saver, threadId);
    expect(tuple.checkpoint.id).toBe(cp.id);
    expect(tuple.pendingWrites).toEqual([{ taskId: "t", channel: "a", value: 1 }]);
    expect(await ctx.saver.storedBytes?.(threadId)).toBe(bytes);
  });

  it("a stale writer is fenced by the epoch: its lease expired, another took over, nothing it sends lands", async () => {
    const threadId = uniqueThreadId();
    const other = await ctx.peer();
    const stale = await ctx.saver.acquireLease(threadId, "paused-worker", 5_000);
    const base = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: ["start"] }, lease: stale });
    // The first writer pauses (a long GC, a suspended laptop) past its lease; a second one takes over.
    await ctx.clock.advance(6_000);
    const fresh = await other.acquireLease(threadId, "new-worker", 5_000);
    expect(fresh.epoch).toBe(stale.epoch + 1);
    const next = await putStep(other, {
      threadId,
      id: ctx.nextId(),
      parent: base,
      append: { log: ["new"] },
      lease: fresh,
    });
    const bytes = await ctx.saver.storedBytes?.(threadId);
    // The stale writer wakes up and tries to continue from where it was: every write is refused.
    const put = await putStep(ctx.saver, {
      threadId,
      id: ctx.nextId(),
      parent: base,
      append: { log: ["stale"] },
      lease: stale,
    }).catch((e) => e);
    expect(put).toBeInstanceOf(LeaseError);
    expect(put.code).toBe("LEASE_LOST");
    expect(put.details.threadId).toBe(threadId);
    const write = await ctx.saver
      .putWrites({ threadId, checkpointId: next.id }, [{ taskId: "x", channel: "log", value: "stale" }], stale)
      .catch((e) => e);
    expect(write.code).toBe("LEASE_LOST");
    const renew = await ctx.saver.renewLease(stale, 5_000).catch((e) => e);
    expect(renew.code).toBe("LEASE_LOST");
    await ctx.saver.releaseLease(stale);
    // The chain is the new writer's alone.
    const history = await collect(ctx.saver.list(threadId));
    expect(history.map((t) => t.checkpoint.id)).toEqual([next.id, base.id]);
    expect(history[0]?.values).toEqual({ log: ["start", "new"] });
    expect(history[0]?.pendingWrites).toEqual([]);
    expect(await ctx.saver.storedBytes?.(threadId)).toBe(bytes);
    const busy = await ctx.saver.acquireLease(threadId, "paused-worker", 5_000).catch((e) => e);
    expect(busy.code).toBe("THREAD_BUSY");
  });

  it("two writers racing for one thread: exactly one wins, the loser is told the thread is busy", async () => {
    const threadId = uniqueThreadId();
    const a = ctx.saver;
    const b = await ctx.peer();
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled([
        a.acquireLease(threadId, `a${round}`, 60_000),
        b.acquireLease(threadId, `b${round}`, 60_000),
      ]);
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r) => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const reason = (lost[0] as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(LeaseError);
      expect(reason.code).toBe("THREAD_BUSY");
      const lease = (won[0] as PromiseFulfilledResult<Lease>).value;
      expect(lease.epoch).toBe(round + 1);
      await (won[0] === results[0] ? a : b).releaseLease(lease);
    }
  });

  it("writers that take turns through the lease keep the chain linear", async () => {
    const threadId = uniqueThreadId();
    const writers: [string, CheckpointSaver][] = [
      ["a", ctx.saver],
      ["b", await ctx.peer()],
      ["c", await ctx.peer()],
    ];
    const root = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: [] } });
    const perWriter = 8;
    const run = async ([name, saver]: [string, CheckpointSaver]) => {
      for (let done = 0; done < perWriter; ) {
        let lease: Lease;
        try {
          lease = await saver.acquireLease(threadId, name, 60_000);
        } catch (error) {
          if (!(error instanceof LeaseError) || error.code !== "THREAD_BUSY") throw error;
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        const head = await latest(saver, threadId);
        await putStep(saver, {
          threadId,
          id: ctx.nextId(),
          parent: head.checkpoint,
          append: { log: [`${name}${done}`] },
          lease,
        });
        await saver.releaseLease(lease);
        done++;
      }
    };
    await Promise.all(writers.map(run));
    const history = await collect(ctx.saver.list(threadId));
    expect(history).toHaveLength(1 + writers.length * perWriter);
    for (let i = 0; i + 1 < history.length; i++) {
      expect(history[i]?.checkpoint.parentId).toBe(history[i + 1]?.checkpoint.id);
    }
    expect(history.at(-1)?.checkpoint.id).toBe(root.id);
    const log = (history[0]?.values.log ?? []) as string[];
    expect(log).toHaveLength(writers.length * perWriter);
    expect(new Set(log).size).toBe(log.length);
  });

  // Dead-holder takeover: the savers judge holders with the default `isLocalHolderDead`.
  const judged = currentHolder().scope !== "";

  it.skipIf(!judged)(
    "a lease whose holder is a dead process of this host is taken over at once; the dead holder's writes are refused",
    async () => {
      const threadId = uniqueThreadId();
      const dead = leaseOwnerOf("crashed-run", { ...currentHolder(), pid: exitedPid() });
      const held = await ctx.saver.acquireLease(threadId, dead, 60_000);
      const base = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: ["a"] }, lease: held });
      // No time passes: the lease is far from expiring, yet its holder is gone.
      const other = await ctx.peer();
      const taken = await other.acquireLease(threadId, "w2", 60_000);
      expect(taken).toEqual({ threadId, owner: "w2", epoch: held.epoch + 1, expiresAt: ctx.clock.now() + 60_000 });
      const refused = await putStep(ctx.saver, {
        threadId,
        id: ctx.nextId(),
        parent: base,
        append: { log: ["stale"] },
        lease: held,
      }).catch((e) => e);
      expect(refused.code).toBe("LEASE_LOST");
      // The new holder is alive (a plain owner names no process): nobody takes it from it.
      const busy = await ctx.saver.acquireLease(threadId, dead, 60_000).catch((e) => e);
      expect(busy.code).toBe("THREAD_BUSY");
      expect((await collect(ctx.saver.list(threadId))).map((t) => t.checkpoint.id)).toEqual([base.id]);
    },
  );

  it.skipIf(!judged || currentHolder().start === "")(
    "a holder whose pid now belongs to a process started at another time (a reused pid) is dead",
    async () => {
      for (const pid of [process.pid, process.ppid]) {
        const threadId = uniqueThreadId();
        const reused = leaseOwnerOf("old-incarnation", { ...currentHolder(), pid, start: "1" });
        const held = await ctx.saver.acquireLease(threadId, reused, 60_000);
        const taken = await ctx.saver.acquireLease(threadId, "w2", 60_000);
        expect(taken.epoch).toBe(held.epoch + 1);
      }
    },
  );

  it("a live holder keeps its lease: this process, a process of another host or of another pid namespace", async () => {
    const me = currentHolder();
    const gone = exitedPid();
    const holders: LeaseHolder[] = [
      me,
      { host: "elsewhere.invalid", scope: "another-boot/4026531836", pid: gone, start: "1" },
      { ...me, scope: `${me.scope}-another-container`, pid: gone },
      { ...me, scope: "", pid: gone },
    ];
    for (const holder of holders) {
      const threadId = uniqueThreadId();
      const held = await ctx.saver.acquireLease(threadId, leaseOwnerOf("live-run", holder), 5_000);
      const busy = await (await ctx.peer()).acquireLease(threadId, "w2", 5_000).catch((e) => e);
      expect(busy).toBeInstanceOf(LeaseError);
      expect(busy.code).toBe("THREAD_BUSY");
      expect(busy.message).toContain(`pid ${holder.pid} on ${holder.host}`);
      // Elsewhere the TTL still rules.
      await ctx.clock.advance(5_000);
      expect((await ctx.saver.acquireLease(threadId, "w2", 5_000)).epoch).toBe(held.epoch + 1);
    }
  });

  it.skipIf(!judged)(
    "an ended execution of this process frees its lease at once for this process; a running one, stalled or not, keeps it",
    async () => {
      const threadId = uniqueThreadId();
      // The failed attempt: its lease is stored (say its acquire committed but the answer was cut off).
      const failed = processLeaseOwner(`failed-attempt-${threadId}`);
      const endFailed = startLeaseExecution(failed);
      const held = await ctx.saver.acquireLease(threadId, failed, 60_000);
      const base = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { log: ["a"] }, lease: held });
      // While it runs (however long it stalls), this process's next execution is refused.
      const next = processLeaseOwner(`next-attempt-${threadId}`);
      const endNext = startLeaseExecution(next);
      const busy = await ctx.saver.acquireLease(threadId, next, 60_000).catch((e) => e);
      expect(busy.code).toBe("THREAD_BUSY");
      // Ended without a release: no time passes, yet the next execution takes the thread over.
      endFailed();
      const taken = await ctx.saver.acquireLease(threadId, next, 60_000);
      expect(taken).toEqual({ threadId, owner: next, epoch: held.epoch + 1, expiresAt: ctx.clock.now() + 60_000 });
      // Fencing holds: the ended execution's lease writes nothing more.
      const refused = await putStep(ctx.saver, {
        threadId,
        id: ctx.nextId(),
        parent: base,
        append: { log: ["stale"] },
        lease: held,
      }).catch((e) => e);
      expect(refused.code).toBe("LEASE_LOST");
      // The new holder runs: a third execution of this process, or another writer, waits for it.
      const third = processLeaseOwner(`third-attempt-${threadId}`);
      const endThird = startLeaseExecution(third);
      expect((await ctx.saver.acquireLease(threadId, third, 60_000).catch((e) => e)).code).toBe("THREAD_BUSY");
      expect((await (await ctx.peer()).acquireLease(threadId, "w2", 60_000).catch((e) => e)).code).toBe("THREAD_BUSY");
      endNext();
      endThird();
      expect((await collect(ctx.saver.list(threadId))).map((t) => t.checkpoint.id)).toEqual([base.id]);
    },
  );

  it.skipIf(!judged)("an owner shared by two executions of this process is live until both have ended", async () => {
    const threadId = uniqueThreadId();
    const shared = processLeaseOwner(`shared-${threadId}`);
    const endOne = startLeaseExecution(shared);
    const endTwo = startLeaseExecution(shared);
    const held = await ctx.saver.acquireLease(threadId, shared, 60_000);
    endOne();
    endOne(); // ending twice counts once
    const other = processLeaseOwner(`other-${threadId}`);
    expect((await ctx.saver.acquireLease(threadId, other, 60_000).catch((e) => e)).code).toBe("THREAD_BUSY");
    endTwo();
    expect((await ctx.saver.acquireLease(threadId, other, 60_000)).epoch).toBe(held.epoch + 1);
  });

  it("a put without a lease is not checked against leases", async () => {
    const threadId = uniqueThreadId();
    await ctx.saver.acquireLease(threadId, "w1", 60_000);
    const cp = await putStep(ctx.saver, { threadId, id: ctx.nextId(), full: { a: 1 } });
    expect((await latest(ctx.saver, threadId)).checkpoint.id).toBe(cp.id);
    const busy = await ctx.saver.acquireLease(threadId, "w2", 60_000).catch((e) => e);
    expect(busy.code).toBe("THREAD_BUSY");
  });
}

/** The pid of a process that has exited and been reaped. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""], { stdio: "ignore" });
  if (!child.pid) throw new Error("could not start a short-lived process");
  return child.pid;
}
