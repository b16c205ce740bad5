import { randomUUID } from "node:crypto";
import type { CheckpointSaver, Clock, Lease } from "@trellis/checkpoint";

/** How long a run's hold on its thread lasts without renewal, unless the graph says otherwise. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** A run's lease on its thread, renewed in the background until released. @internal */
export interface LeaseKeeper {
  readonly current: Lease;
  release(): Promise<void>;
}

/**
 * Takes the thread's lease for a run (failing with `THREAD_BUSY` if another writer holds it) and renews
 * it every third of its TTL. @internal
 */
export async function acquireLease(
  saver: CheckpointSaver,
  threadId: string,
  clock: Clock,
  options: { owner?: string | undefined; ttlMs?: number } = {},
): Promise<LeaseKeeper> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  let current = await saver.acquireLease(threadId, options.owner ?? `run-${randomUUID()}`, ttlMs);
  let timer: unknown;
  let released = false;
  const schedule = () => {
    timer = clock.setTimeout(() => {
      saver.renewLease(current, ttlMs).then(
        (renewed) => {
          current = renewed;
          if (!released) schedule();
        },
        () => undefined, // lost: the next put fails with LEASE_LOST and says so
      );
    }, ttlMs / 3);
  };
  schedule();
  return {
    get current() {
      return current;
    },
    async release() {
      released = true;
      clock.clearTimeout(timer);
      await saver.releaseLease(current).catch(() => undefined);
    },
  };
}
