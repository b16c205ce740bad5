import type { CheckpointRef, CheckpointSaver, Lease, PendingWrite, PutRequest } from "@trellis/checkpoint";

/**
 * Hooks around the writes of a saver. `before*` runs before the call reaches the saver (a kill there
 * loses the call), `after*` once the saver acknowledged it (a kill there keeps it).
 */
export interface SaverHooks {
  beforePut?(request: PutRequest): void | Promise<void>;
  afterPut?(request: PutRequest): void | Promise<void>;
  beforePutWrites?(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[]): void | Promise<void>;
  afterPutWrites?(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[]): void | Promise<void>;
}

/**
 * The saver with hooks around `put` and `putWrites`, for kill points and ledgers. Every other call
 * goes straight through.
 *
 * @example
 * const saver = observeSaver(inner, { afterPut: (r) => ledger.record("applied", r.checkpoint.id) });
 */
export function observeSaver(saver: CheckpointSaver, hooks: SaverHooks): CheckpointSaver {
  const observed: CheckpointSaver = {
    get: (ref) => saver.get(ref),
    async put(request: PutRequest) {
      await hooks.beforePut?.(request);
      await saver.put(request);
      await hooks.afterPut?.(request);
    },
    async putWrites(ref, writes, lease?: Lease) {
      await hooks.beforePutWrites?.(ref, writes);
      await saver.putWrites(ref, writes, lease);
      await hooks.afterPutWrites?.(ref, writes);
    },
    list: (threadId, options) => saver.list(threadId, options),
    deleteThread: (threadId) => saver.deleteThread(threadId),
    prune: (threadId, options) => saver.prune(threadId, options),
    setTtl: (threadId, ttl) => saver.setTtl(threadId, ttl),
    sweepExpired: () => saver.sweepExpired(),
    acquireLease: (threadId, owner, ttl) => saver.acquireLease(threadId, owner, ttl),
    renewLease: (lease, ttl) => saver.renewLease(lease, ttl),
    releaseLease: (lease) => saver.releaseLease(lease),
    close: () => saver.close?.() ?? Promise.resolve(),
  };
  if (saver.storedBytes) observed.storedBytes = (threadId) => saver.storedBytes?.(threadId) ?? Promise.resolve(0);
  return observed;
}
