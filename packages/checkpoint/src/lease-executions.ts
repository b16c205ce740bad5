/**
 * The lease-holding executions of this process: which are running now, and which have ended. A lease
 * stored under an owner whose execution ended here (its release failed, or its acquire committed but
 * the answer never came back) is free at once for this process (see `isLocalHolderDead`); a running
 * one is never judged, however long it stalls: only its lease's expiry or a takeover fences it.
 */

/** Running executions by owner, counted: two executions may name one owner (`RunConfig.leaseOwner`). */
const running = new Map<string, number>();
/** Owners whose last execution ended here, oldest first. */
const ended = new Set<string>();
/** Ended owners remembered; a lease of an older one waits for its TTL, as before this registry. */
const MAX_ENDED = 10_000;

/**
 * Records that an execution holding leases as `owner` (an owner of this process, see
 * `processLeaseOwner`) starts, before it asks for any lease; returns the function that records its end.
 * Call the end once the execution will write nothing more, whatever happened to its lease (given back,
 * release failed, acquire failed without an answer): from then on a lease still stored under `owner`
 * is free at once for this process, unless another execution under `owner` is still running. Ending
 * twice counts once. Pass `stillStored: false` when the lease is known to be given back (its release
 * answered): nothing is left to free, so the owner is not remembered (a process that runs many threads
 * keeps no memory per run). A later call with `true` (a renewal stored it again) remembers it then.
 *
 * @example
 * const end = startLeaseExecution(owner);
 * try {
 *   const lease = await saver.acquireLease(threadId, owner, 30_000);
 *   // … writes with `lease` …
 *   await saver.releaseLease(lease);
 * } finally {
 *   end();
 * }
 */
export function startLeaseExecution(owner: string): (stillStored?: boolean) => void {
  running.set(owner, (running.get(owner) ?? 0) + 1);
  ended.delete(owner);
  let done = false;
  return (stillStored = true) => {
    if (!done) {
      done = true;
      const left = (running.get(owner) ?? 1) - 1;
      if (left > 0) running.set(owner, left);
      else running.delete(owner);
    }
    if (!stillStored || running.has(owner)) return;
    ended.add(owner);
    if (ended.size > MAX_ENDED) ended.delete(ended.values().next().value as string);
  };
}

/**
 * Whether `owner` names an execution of this process that has ended ({@link startLeaseExecution}) and
 * none under that owner runs now. An owner never registered here is not ended: nothing is known of it.
 *
 * @example
 * if (hasLeaseExecutionEnded(lease.owner)) console.log("its lease is free for this process");
 */
export function hasLeaseExecutionEnded(owner: string): boolean {
  return ended.has(owner) && !running.has(owner);
}
