import type { Lease } from "@trellis/checkpoint";

/** A thread's row in the `threads` table: its TTL and its lease (bigints come back as strings). @internal */
export interface ThreadRow {
  ttl_ms: string | null;
  touched_at: string;
  lease_owner: string | null;
  lease_epoch: string;
  lease_expires_at: string;
}

/** Whether the thread's TTL has run out at `now`. @internal */
export function expired(thread: Pick<ThreadRow, "ttl_ms" | "touched_at">, now: number): boolean {
  return thread.ttl_ms !== null && now >= Number(thread.touched_at) + Number(thread.ttl_ms);
}

/** The lease the row holds, if any. @internal */
export function leaseOf(threadId: string, thread: ThreadRow): Lease | undefined {
  if (thread.lease_owner === null) return undefined;
  return {
    threadId,
    owner: thread.lease_owner,
    epoch: Number(thread.lease_epoch),
    expiresAt: Number(thread.lease_expires_at),
  };
}
