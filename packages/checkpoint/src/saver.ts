import type {
  CheckpointRef,
  CheckpointTuple,
  CommitRequest,
  Lease,
  LeasedTuple,
  ListOptions,
  PendingWrite,
  PutRequest,
} from "./types.js";

/**
 * The contract every checkpoint store implements. Short on purpose: the runtime needs nothing else.
 * Run `describeSaverConformance` from `@trellis/checkpoint/testing` against an implementation.
 *
 * @example
 * const saver: CheckpointSaver = new MemorySaver();
 * const graph = builder.compile({ checkpointer: saver });
 */
export interface CheckpointSaver {
  /** The checkpoint `ref` names, or the latest of its thread and namespace; undefined when none. */
  get(ref: CheckpointRef): Promise<CheckpointTuple | undefined>;
  /** Stores a checkpoint, the channel values it changed and its writes, all or nothing. */
  put(request: PutRequest): Promise<void>;
  /**
   * Records writes against an existing checkpoint (`ref.checkpointId` is required). A write with the
   * same task id and channel as a stored one replaces it, so retrying a putWrites is harmless.
   */
  putWrites(ref: CheckpointRef & { checkpointId: string }, writes: PendingWrite[], lease?: Lease): Promise<void>;
  /** A thread's checkpoints in one namespace, newest first. */
  list(threadId: string, options?: ListOptions): AsyncIterable<CheckpointTuple>;
  /** Removes everything stored for the thread, in every namespace, including its lease. */
  deleteThread(threadId: string): Promise<void>;
  /** Keeps the newest `keepLast` checkpoints of each namespace of the thread and what they need. */
  prune(threadId: string, options: { keepLast: number }): Promise<void>;
  /** Deletes the thread once `ttlMs` pass with no put to it; `null` removes the limit. */
  setTtl(threadId: string, ttlMs: number | null): Promise<void>;
  /** Deletes every thread whose TTL ran out; returns how many. Savers with native TTL may return 0. */
  sweepExpired(): Promise<number>;
  /**
   * Takes the thread's lease for `owner` if it is free, expired, already `owner`'s, or held by a process
   * that is provably dead (an owner naming its holder, see `leaseOwnerOf`, judged by the saver's
   * `isHolderDead`, by default `isLocalHolderDead`). Otherwise throws a {@link LeaseError} with code
   * `THREAD_BUSY`. A new holder gets a higher epoch. The rule is `nextLease`.
   */
  acquireLease(threadId: string, owner: string, ttlMs: number): Promise<Lease>;
  /** Extends a current lease; throws a `LEASE_LOST` {@link LeaseError} if it is no longer current. */
  renewLease(lease: Lease, ttlMs: number): Promise<Lease>;
  /** Gives a lease back. Releasing a lease that is no longer current does nothing. */
  releaseLease(lease: Lease): Promise<void>;
  /**
   * Optional: `acquireLease(ref.threadId, owner, ttlMs)` then `get(ref)`, in one transaction — a run
   * loads its thread and takes it in one commit. Throws `THREAD_BUSY` exactly as `acquireLease` does,
   * having changed nothing. The runtime falls back to the two calls when a saver lacks it.
   *
   * @example
   * const { lease, tuple } = await saver.acquireLeaseAndGet({ threadId: "t1" }, processLeaseOwner("w1"), 30_000);
   */
  acquireLeaseAndGet?(ref: CheckpointRef, owner: string, ttlMs: number): Promise<LeasedTuple>;
  /**
   * Optional: what `putWrites`, `put` and `releaseLease` would do, in one transaction, all or nothing
   * (see {@link CommitRequest}). A `lease` that is not current refuses the whole commit with
   * `LEASE_LOST`, as `put` does, and gives nothing back. The runtime carries a resume value with the
   * checkpoint that follows it and releases its lease with its last write through it, and falls back to
   * the separate calls when a saver lacks it.
   *
   * @example
   * await saver.commit({ put: { checkpoint, blobs }, lease, release: true });
   */
  commit?(request: CommitRequest): Promise<void>;
  /**
   * Optional, for a saver that stores in this process's memory: `put`, done before it returns (same
   * checks, same errors, thrown). With `sync` durability the runtime calls it instead of awaiting `put`,
   * so a superstep that stores its checkpoint makes no promise. A saver whose `put` does I/O must not
   * have it; a subclass that changes `put` must change this too.
   *
   * @example
   * saver.putNow?.({ checkpoint, blobs, lease });
   */
  putNow?(request: PutRequest): void;
  /** Bytes stored for the thread (checkpoints, values, writes), where the saver can tell. */
  storedBytes?(threadId: string): Promise<number>;
  /** Frees connections and files. */
  close?(): Promise<void>;
}
