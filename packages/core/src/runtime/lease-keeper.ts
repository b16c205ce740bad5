import { randomBytes } from "node:crypto";
import {
  type CheckpointRef,
  type CheckpointSaver,
  type CheckpointTuple,
  type Clock,
  type Lease,
  LeaseError,
  processLeaseOwner,
  startLeaseExecution,
} from "@trellis/checkpoint";

/** How long a run's hold on its thread lasts without renewal, unless the graph says otherwise. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** A run's lease on its thread, renewed in the background until released. @internal */
export interface LeaseKeeper {
  readonly current: Lease;
  /**
   * Stops renewals and runs `commit`, the run's last write, which gives `lease` back in its own
   * transaction (`saver.commit({ …, release: true })`). Once it succeeds, `release` only stops; if it
   * fails, `release` gives the lease back as usual.
   */
  releaseWith(commit: (lease: Lease) => Promise<void>): Promise<void>;
  release(): Promise<void>;
}

/**
 * The lease owner of one execution: `leaseOwner` when the caller names the attempt, else the run id
 * (or "run") and a nonce of its own, so every execution is a new holder with a higher epoch — two
 * executors of one run id never share a lease. Either way it names this process (host, pid, start
 * time), so the lease is free at once for this host when the process dies. @internal
 */
export function executionLeaseOwner(config: { runId?: string | undefined; leaseOwner?: string | undefined }): string {
  const name = config.leaseOwner ?? `${config.runId ?? "run"}.${EXECUTION_PREFIX}${(++executions).toString(36)}`;
  return processLeaseOwner(name);
}

/** Random per process, then counted: unique per execution without a random draw per run. */
const EXECUTION_PREFIX = randomBytes(4).toString("hex");
let executions = 0;

/**
 * Takes the thread's lease (failing with `THREAD_BUSY` if another writer holds it) and renews it every
 * third of its TTL. When a renewal finds the lease lost (`LEASE_LOST`: another writer took the thread
 * over), or renewals keep failing until the lease has expired, `onLost` is called once with the
 * `LEASE_LOST` error and renewals stop: the run must stop, since none of its writes would land.
 *
 * The execution is registered with this process (`startLeaseExecution`) before the lease is asked for,
 * and ends when the keeper is released — or at once when the acquire fails, since it may have committed
 * without its answer arriving (a cut connection): a lease left stored under this owner is then free at
 * once for this process's next execution. @internal
 */
export async function acquireLease(
  saver: CheckpointSaver,
  threadId: string,
  clock: Clock,
  options: KeeperOptions,
): Promise<LeaseKeeper> {
  const end = startLeaseExecution(options.owner);
  try {
    const lease = await saver.acquireLease(threadId, options.owner, options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
    return keepLease(saver, lease, clock, { end, ...options });
  } catch (error) {
    end();
    throw error;
  }
}

/**
 * {@link acquireLease} and a read of `ref` in one transaction, when the saver can
 * (`acquireLeaseAndGet`): a run loads and takes its thread in one commit. Without it, only the lease
 * is taken here and `loaded` is undefined: the caller reads the thread itself, as before. @internal
 */
export async function acquireLeaseAndLoad(
  saver: CheckpointSaver,
  ref: CheckpointRef,
  clock: Clock,
  options: KeeperOptions,
): Promise<{ keeper: LeaseKeeper; loaded: { tuple: CheckpointTuple | undefined } | undefined }> {
  if (!saver.acquireLeaseAndGet) {
    return { keeper: await acquireLease(saver, ref.threadId, clock, options), loaded: undefined };
  }
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const end = startLeaseExecution(options.owner);
  try {
    const { lease, tuple } = await saver.acquireLeaseAndGet(ref, options.owner, ttlMs);
    return { keeper: keepLease(saver, lease, clock, { end, ...options }), loaded: { tuple } };
  } catch (error) {
    end(); // see acquireLease: a lease this acquire may have stored is free for this process now
    throw error;
  }
}

interface KeeperOptions {
  owner: string;
  ttlMs?: number | undefined;
  onLost?: (error: LeaseError) => void;
}

function keepLease(
  saver: CheckpointSaver,
  lease: Lease,
  clock: Clock,
  options: KeeperOptions & { end: (stillStored?: boolean) => void },
): LeaseKeeper {
  const { threadId } = lease;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  let current = lease;
  let timer: unknown;
  let stopped = false;
  let released = false;
  const lost = (error: LeaseError) => {
    if (stopped) return;
    stopped = true;
    options.onLost?.(error);
  };
  const schedule = (ms: number) => {
    timer = clock.setTimeout(renew, ms);
  };
  const stop = () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
  const renew = () => {
    if (stopped) return;
    saver.renewLease(current, ttlMs).then(
      (renewed) => {
        current = renewed;
        // A renewal that landed after the lease was given back stored it again: give it back again. (The
        // lease is free for this process anyway once the execution has ended; this is for the others.)
        // If that fails, the lease stays stored: this process remembers its owner as ended, so it is free here.
        if (released) void saver.releaseLease(renewed).catch(() => options.end(true));
        if (!stopped) schedule(ttlMs / 3);
      },
      (error: unknown) => {
        if (error instanceof LeaseError && error.code === "LEASE_LOST") return lost(error);
        if (clock.now() >= current.expiresAt) {
          // The store could not be reached until the lease ran out: another writer may hold it now.
          return lost(
            new LeaseError(
              "LEASE_LOST",
              `The lease on thread "${threadId}" (epoch ${current.epoch}) expired: it could not be renewed (${String((error as Error)?.message ?? error)}). The run stops; continue it with invoke(null, config).`,
              { details: { threadId, epoch: current.epoch }, cause: error },
            ),
          );
        }
        if (!stopped) schedule(Math.min(ttlMs / 10, 1_000)); // a passing failure: try again soon
      },
    );
  };
  schedule(ttlMs / 3);
  return {
    get current() {
      return current;
    },
    async releaseWith(commit) {
      // The run's last write: no renewal may race it (one after the release would report the lease lost).
      stop();
      await commit(current);
      released = true;
    },
    async release() {
      stop();
      let stillStored = false;
      if (!released) {
        released = true;
        // Still stored (the store is down?): given back in the background once the store answers again,
        // for other processes; for this one the lease is free as soon as the execution has ended, below.
        await saver.releaseLease(current).catch(() => {
          stillStored = true;
          retryRelease(saver, current, clock);
        });
      }
      options.end(stillStored);
    },
  };
}

/** Delays between the attempts to give back a lease whose release failed, in ms; the last one repeats. */
const RELEASE_RETRY_MS = [250, 500, 1_000, 2_000, 4_000];
/** At most this many attempts (about two minutes), whatever the lease's expiry says. */
const MAX_RELEASE_RETRIES = 30;

/**
 * Gives `lease` back in the background after its release failed (the store was unreachable), until a
 * release goes through, the lease has expired by itself, or {@link MAX_RELEASE_RETRIES} attempts.
 * Timers do not keep the process alive.
 */
function retryRelease(saver: CheckpointSaver, lease: Lease, clock: Clock): void {
  let attempt = 0;
  const next = () => {
    // expired: nobody is kept waiting by it any more
    if (clock.now() >= lease.expiresAt || attempt >= MAX_RELEASE_RETRIES) return;
    const delay = RELEASE_RETRY_MS[Math.min(attempt++, RELEASE_RETRY_MS.length - 1)] as number;
    setTimeout(() => {
      saver.releaseLease(lease).then(() => undefined, next);
    }, delay).unref?.();
  };
  next();
}
