import { LeaseError } from "./errors.js";
import type { Lease } from "./types.js";

/**
 * The process holding a lease. An owner made by {@link leaseOwnerOf} carries it, so any process can tell
 * whether the lease's writer still exists.
 *
 * @example
 * const holder: LeaseHolder = { host: "web-1", scope: "47f25f04…/4026531836", pid: 4242, start: "1834512" };
 */
export interface LeaseHolder {
  /** The machine's host name (`os.hostname()`). */
  host: string;
  /**
   * Which kernel and process-id space `pid` belongs to (on Linux: the boot id and the pid namespace),
   * so that two containers or two machines with one host name are not taken for one. `""` when unknown:
   * such a holder is never judged dead, its lease's expiry decides.
   */
  scope: string;
  pid: number;
  /**
   * When the process started (on Linux: clock ticks since boot, field 22 of `/proc/<pid>/stat`), so a
   * process that reuses a dead holder's pid is not taken for it. `""` when unknown.
   */
  start: string;
}

/**
 * Whether a lease's holder is provably dead, so its lease is free before it expires. Must answer
 * `false` whenever it cannot be sure (another host, an unknown scope): then the lease's TTL rules.
 * `owner` is the whole lease owner, for checks that know single executions of a live process.
 *
 * @example
 * const sameHostOnly: HolderCheck = (holder, owner) => holder.host === hostname() && isLocalHolderDead(holder, owner);
 * const saver = new MemorySaver({ isHolderDead: sameHostOnly });
 */
export type HolderCheck = (holder: LeaseHolder, owner: string) => boolean;

const HOLDER_MARK = "|holder=";

/**
 * The lease owner for `name` held by `holder`: `name|holder=<host>,<scope>,<pid>,<start>` (each field
 * URI-encoded). Read it back with {@link parseLeaseOwner}.
 *
 * @example
 * const owner = leaseOwnerOf("run-42.9f1c", currentHolder());
 * await saver.acquireLease("t1", owner, 30_000);
 */
export function leaseOwnerOf(name: string, holder: LeaseHolder): string {
  const fields = [holder.host, holder.scope, String(holder.pid), holder.start].map(encodeURIComponent);
  return `${name}${HOLDER_MARK}${fields.join(",")}`;
}

/**
 * Splits a lease owner into its name and, when it was made by {@link leaseOwnerOf}, its holder. Plain
 * owners (`"w1"`) have no holder: only their lease's expiry frees the thread.
 *
 * @example
 * parseLeaseOwner("run-42|holder=web-1,b%2F4026531836,4242,1834512").holder?.pid; // 4242
 */
export function parseLeaseOwner(owner: string): { name: string; holder: LeaseHolder | undefined } {
  const at = owner.lastIndexOf(HOLDER_MARK);
  if (at < 0) return { name: owner, holder: undefined };
  const fields = owner.slice(at + HOLDER_MARK.length).split(",");
  const pid = Number(fields[2]);
  if (fields.length !== 4 || !Number.isSafeInteger(pid) || pid <= 0) return { name: owner, holder: undefined };
  try {
    const [host, scope, , start] = fields.map(decodeURIComponent) as [string, string, string, string];
    return { name: owner.slice(0, at), holder: { host, scope, pid, start } };
  } catch {
    return { name: owner, holder: undefined };
  }
}

/** `run-42 (pid 4242 on web-1)` for messages; plain owners as they are. */
function describeOwner(owner: string): string {
  const { name, holder } = parseLeaseOwner(owner);
  return holder ? `${name} (pid ${holder.pid} on ${holder.host})` : owner;
}

/**
 * The lease rule every saver applies, as a pure function: the lease `owner` gets when asking for the
 * thread at time `now`, given the `current` one. Throws `THREAD_BUSY` when another owner holds a live
 * lease whose holder is not provably dead (`isHolderDead`, given the holder named in the owner — see
 * {@link leaseOwnerOf}). A new holder gets the next epoch; the same holder keeps its epoch and gets a
 * later expiry.
 *
 * @example
 * const lease = nextLease(undefined, { threadId: "t", owner: "w1", ttlMs: 30_000, now: Date.now() });
 * const taken = nextLease(lease, { threadId: "t", owner: "w2", ttlMs: 30_000, now, isHolderDead: isLocalHolderDead });
 */
export function nextLease(
  current: Lease | undefined,
  request: { threadId: string; owner: string; ttlMs: number; now: number; isHolderDead?: HolderCheck | undefined },
): Lease {
  const { threadId, owner, ttlMs, now } = request;
  const live = current !== undefined && current.expiresAt > now;
  if (live && current.owner !== owner && !holderIsDead(current.owner, request.isHolderDead)) {
    throw new LeaseError(
      "THREAD_BUSY",
      `Thread "${threadId}" is busy: another writer (${describeOwner(current.owner)}) holds it until ${new Date(current.expiresAt).toISOString()}. Wait for its run to end, or retry later.`,
      { details: { threadId, holder: current.owner, expiresAt: current.expiresAt } },
    );
  }
  const keep = live && current.owner === owner;
  return { threadId, owner, epoch: keep ? current.epoch : (current?.epoch ?? 0) + 1, expiresAt: now + ttlMs };
}

function holderIsDead(owner: string, isHolderDead: HolderCheck | undefined): boolean {
  if (!isHolderDead) return false;
  const { holder } = parseLeaseOwner(owner);
  if (!holder) return false;
  try {
    return isHolderDead(holder, owner) === true;
  } catch {
    return false; // a check that cannot decide leaves the lease to its expiry
  }
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
      ? `another writer (${describeOwner(current.owner)}, epoch ${current.epoch}) took it over`
      : "the lease expired";
  throw new LeaseError(
    "LEASE_LOST",
    `Write to thread "${presented.threadId}" refused: this writer's lease (epoch ${presented.epoch}) is not current, because ${why}. Nothing was written; reload the thread and run again.`,
    { details: { threadId: presented.threadId, epoch: presented.epoch, currentEpoch: current?.epoch } },
  );
}
