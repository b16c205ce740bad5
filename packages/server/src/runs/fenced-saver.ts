import { type CheckpointSaver, type Lease, TrellisError } from "@trellis/checkpoint";
import type { RunStore } from "../stores/run-store.js";
import type { ExecuteContext } from "./run-executor.js";

/**
 * The saver as one attempt sees it: every write (checkpoint, writes, lease) is checked against the
 * attempt's fence first, so an attempt whose worker was paused past its heartbeats writes nothing when
 * it wakes; the checkpoint lease (the core's) fences writes that were already on their way. Each
 * write's answer, and each `get`'s, is checked again when it arrives, so a worker paused while a write
 * was on the database starts no node from it once continued. With
 * `leaseTtlMs`, the lease is taken for that long and renewed here every third of it. A saver's folds
 * (`acquireLeaseAndGet`, `commit`) pass through, fenced and held the same way, so a server run takes its
 * lease with its first read and gives it back with its last write. With `quickly` (a stateless run's
 * attempt: {@link RunStore.commitQuickly}), every write is made through it, committed with the run
 * store's bookkeeping and synced with the answer. With `quickPuts` (the run store's
 * {@link RunStore.commitQuickly}, whose file the saver shares), a put the runtime marked quick (a run's
 * input, `PutRequest.quick`) is made through it, so the store counts it among the commits the next
 * answer must sync: an answer showing the thread's state then never shows an unsynced checkpoint.
 *
 * @example
 * const graph = hosted.graph.withCheckpointer(fencedSaver(saver, { fence, lost, leaseTtlMs: 15_000 }));
 * @internal
 */
export function fencedSaver(
  saver: CheckpointSaver,
  ctx: Pick<ExecuteContext, "fence" | "lost" | "leaseTtlMs"> & {
    quickly?: RunStore["commitQuickly"] | undefined;
    quickPuts?: RunStore["commitQuickly"] | undefined;
  },
): CheckpointSaver {
  const { fence, leaseTtlMs, quickly, quickPuts } = ctx;
  // fenced before the call, and again when its answer arrives: a worker paused while its write was on
  // the database reads the answer only once continued, maybe after another worker took the run over,
  // and must not go on to start the next node from it
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      fence();
      // a saver that writes before its first await commits inside `quickly`; one that awaits first commits as opened
      const result = await (quickly ? quickly(() => fn(...args)) : fn(...args));
      fence();
      return result;
    };
  // the leases this attempt holds, kept alive at the server's TTL
  const held = new Map<string, { lease: Lease; timer: ReturnType<typeof setInterval> }>();
  const key = (lease: Lease) => `${lease.threadId}\u0000${lease.owner}`;
  const hold = (lease: Lease): Lease => {
    if (leaseTtlMs === undefined) return lease;
    const k = key(lease);
    const entry = held.get(k);
    if (entry) {
      entry.lease = lease;
      return lease;
    }
    const timer = setInterval(() => {
      const current = held.get(k);
      if (!current) return;
      saver.renewLease(current.lease, leaseTtlMs).then(
        (renewed) => {
          if (held.get(k) === current) current.lease = renewed;
        },
        (error: unknown) => {
          if (error instanceof TrellisError && error.code === "LEASE_LOST") {
            clearInterval(timer);
            held.delete(k);
            ctx.lost(error.message);
          }
        },
      );
    }, leaseTtlMs / 3);
    timer.unref?.();
    held.set(k, { lease, timer });
    return lease;
  };
  const ttl = (asked: number) => (leaseTtlMs === undefined ? asked : leaseTtlMs);
  const fenced: CheckpointSaver = {
    // a read's answer is fenced too: what a run reads decides what it starts next
    get: async (ref) => {
      const tuple = await saver.get(ref);
      fence();
      return tuple;
    },
    list: (threadId, options) => saver.list(threadId, options),
    put: guarded((request) => (request.quick && quickPuts ? quickPuts(() => saver.put(request)) : saver.put(request))),
    putWrites: guarded((ref, writes, lease) => saver.putWrites(ref, writes, lease)),
    deleteThread: guarded((threadId) => saver.deleteThread(threadId)),
    prune: guarded((threadId, options) => saver.prune(threadId, options)),
    setTtl: (threadId, ttlMs) => saver.setTtl(threadId, ttlMs),
    sweepExpired: () => saver.sweepExpired(),
    acquireLease: guarded(async (threadId, owner, ttlMs) =>
      hold(await saver.acquireLease(threadId, owner, ttl(ttlMs))),
    ),
    renewLease: guarded(async (lease, ttlMs) => hold(await saver.renewLease(lease, ttl(ttlMs)))),
    releaseLease: async (lease) => {
      const entry = held.get(key(lease));
      if (entry) {
        clearInterval(entry.timer);
        held.delete(key(lease));
      }
      return saver.releaseLease(entry?.lease ?? lease);
    },
  };
  // a lease taken with this attempt's first read is held (the server's TTL, renewed) like any other
  const acquireAndGet = saver.acquireLeaseAndGet?.bind(saver);
  if (acquireAndGet) {
    fenced.acquireLeaseAndGet = guarded(async (ref, owner, ttlMs) => {
      const taken = await acquireAndGet(ref, owner, ttl(ttlMs));
      return { lease: hold(taken.lease), tuple: taken.tuple };
    });
  }
  // a commit is a write: fenced; one that gives the lease back stops renewing it, with its latest renewal
  const commit = saver.commit?.bind(saver);
  if (commit) {
    fenced.commit = guarded(async (request) => {
      if (!request.release || !request.lease) return commit(request);
      const entry = held.get(key(request.lease));
      if (entry) {
        clearInterval(entry.timer);
        held.delete(key(request.lease));
      }
      return commit({ ...request, lease: entry?.lease ?? request.lease });
    });
  }
  if (saver.storedBytes) fenced.storedBytes = (threadId) => saver.storedBytes?.(threadId) as Promise<number>;
  return fenced;
}
