import { LeaseError } from "./errors.js";
import type { Lease } from "./types.js";

/**
 * The lease rule every saver applies, as a pure function: the lease `owner` gets when asking for the
 * thread at time `now`, given the `current` one. Throws `THREAD_BUSY` when another owner holds a live
 * lease. A new holder gets the next epoch; the same holder keeps its epoch and gets a later expiry.
 *
 * @example
 * const lease = nextLease(undefined, { threadId: "t", owner: "w1", ttlMs: 30_000, now: Date.now() });
 */
export function nextLease(
  current: Lease | undefined,
  request: { threadId: string; owner: string; ttlMs: number; now: number },
): Lease {
  const { threadId, owner, ttlMs, now } = request;
  if (current && current.expiresAt > now && current.owner !== owner) {
    throw new LeaseError(
      "THREAD_BUSY",
      `Thread "${threadId}" is busy: another writer (${current.owner}) holds it until ${new Date(current.expiresAt).toISOString()}. Wait for its run to end, or retry later.`,
      { details: { threadId, holder: current.owner, expiresAt: current.expiresAt } },
    );
  }
  const keep = current && current.owner === owner && current.expiresAt > now;
  return { threadId, owner, epoch: keep ? current.epoch : (current?.epoch ?? 0) + 1, expiresAt: now + ttlMs };
}

/**
 * Throws a `LEASE_LOST` {@link LeaseError} unless `presented` is the thread's current, unexpired lease.
 *
 * @example
 * assertLeaseCurrent(stored, request.lease, clock.now());
 */
export function assertLeaseCurrent(current: Lease | undefined, presented: Lease, now: number): void {
  const ok =
    current !== undefined &&
    current.epoch === presented.epoch &&
    current.owner === presented.owner &&
    current.expiresAt > now;
  if (ok) return;
  const why = !current
    ? "no lease is held on it any more"
    : current.epoch !== presented.epoch || current.owner !== presented.owner
      ? `another writer (${current.owner}, epoch ${current.epoch}) took it over`
      : "the lease expired";
  throw new LeaseError(
    "LEASE_LOST",
    `Write to thread "${presented.threadId}" refused: this writer's lease (epoch ${presented.epoch}) is not current, because ${why}. Nothing was written; reload the thread and run again.`,
    { details: { threadId: presented.threadId, epoch: presented.epoch, currentEpoch: current?.epoch } },
  );
}
