import type { Lease } from "@trellis/checkpoint";

/** A thread's row in the `threads` table: its TTL and its lease. @internal */
export interface ThreadRow {
  ttl_ms: number | null;
  touched_at: number;
  lease_owner: string | null;
  lease_epoch: number;
  lease_expires_at: number;
}

/** Whether the thread's TTL has run out at `now`. @internal */
export function expired(thread: ThreadRow, now: number): boolean {
  return thread.ttl_ms !== null && now >= thread.touched_at + thread.ttl_ms;
}

/** The lease the row holds, if any. @internal */
export function leaseOf(threadId: string, thread: ThreadRow): Lease | undefined {
  if (thread.lease_owner === null) return undefined;
  return { threadId, owner: thread.lease_owner, epoch: thread.lease_epoch, expiresAt: thread.lease_expires_at };
}
