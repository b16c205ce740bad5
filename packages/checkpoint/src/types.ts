/**
 * Version of the checkpoint format written by this code. Stored in every checkpoint as `v`.
 *
 * @example
 * const tuple = await checkpointer.get({ threadId: "t1" });
 * if (tuple && tuple.checkpoint.v > CHECKPOINT_FORMAT_VERSION) throw new Error("written by a newer Trellis");
 */
export const CHECKPOINT_FORMAT_VERSION = 1;

/**
 * Where a checkpoint came from.
 *
 * @example
 * const edits: CheckpointSource = "update"; // written by graph.updateState
 * for await (const t of checkpointer.list("t1", { filter: { source: edits } })) console.log(t.checkpoint.id);
 */
export type CheckpointSource = "input" | "loop" | "update" | "fork";

/**
 * Addresses a thread's checkpoint chain, or one checkpoint in it. `namespace` "" is the root graph.
 *
 * @example
 * const ref: CheckpointRef = { threadId: "t1", checkpointId: "1f0c2a9e-…" };
 * const tuple = await checkpointer.get(ref);
 */
export interface CheckpointRef {
  threadId: string;
  /** Subgraph namespace, e.g. `"quiz:3f2a…"`; `""` (the default) is the root graph. */
  namespace?: string;
  /** A specific checkpoint; the latest one when absent. */
  checkpointId?: string;
}

/**
 * Metadata stored with each checkpoint; `list` filters on it.
 *
 * @example
 * const metadata: CheckpointMetadata = { source: "loop", step: 2, writes: { review: ["approved"] }, runId: "r-9" };
 */
export interface CheckpointMetadata {
  source: CheckpointSource;
  /** -1 for the input checkpoint, then 0, 1, 2… for each superstep. */
  step: number;
  /** Which node wrote which state keys in the step that produced this checkpoint. */
  writes: Record<string, string[]>;
  /** Anything else the caller attached (run id, user, tags…). */
  [key: string]: unknown;
}

/**
 * A task planned for the next superstep: a triggered node, or a `Send` packet with its own input.
 *
 * @example
 * const tasks: PlannedTask[] = [{ node: "plan" }, { node: "grade", send: { arg: { doc: "a.md" } } }];
 */
export interface PlannedTask {
  node: string;
  /** Present for `Send` packets: the input the node receives instead of the state. */
  send?: { arg: unknown };
}

/**
 * One checkpoint of a thread: everything needed to continue, except the channel values themselves.
 *
 * @example
 * const tuple = await checkpointer.get({ threadId: "t1" });
 * const checkpoint: Checkpoint | undefined = tuple?.checkpoint;
 * console.log(checkpoint?.id, checkpoint?.parentId, checkpoint?.step, checkpoint?.createdAt);
 */
export interface Checkpoint {
  /** Format version ({@link CHECKPOINT_FORMAT_VERSION}). */
  v: number;
  /** Time-sortable id, unique within the thread. */
  id: string;
  parentId: string | null;
  threadId: string;
  namespace: string;
  step: number;
  /** ISO timestamp. */
  createdAt: string;
  /**
   * For each channel, the version holding its current value. A version is the id of the checkpoint
   * whose step wrote the channel, so versions never collide across forks.
   */
  channelVersions: Record<string, string>;
  /** For channels stored as deltas: how many deltas follow the last full snapshot. */
  channelDepths: Record<string, number>;
  /** The tasks of the next superstep. Empty when the run finished. */
  next: PlannedTask[];
  /** Join edges waiting for more of their sources: join id → sources seen so far. */
  barriers: Record<string, string[]>;
  metadata: CheckpointMetadata;
}

/**
 * A channel value stored by a put: either the whole value, or the items appended since `base` (the
 * channel's previous version) for append-only channels.
 *
 * @example
 * const blobs: ChannelBlob[] = [
 *   { channel: "topic", version: checkpoint.id, kind: "full", value: "ladders" },
 *   { channel: "messages", version: checkpoint.id, kind: "delta", base: parentId, items: [newMessage] },
 * ];
 */
export type ChannelBlob =
  | { channel: string; version: string; kind: "full"; value: unknown }
  | { channel: string; version: string; kind: "delta"; base: string; items: unknown[] };

/**
 * A write recorded against a checkpoint by one task: its state update, an interrupt, a durable step…
 *
 * @example
 * const write: PendingWrite = { taskId: "task-1", channel: "draft", value: "About ladders" };
 * await checkpointer.putWrites({ threadId: "t1", checkpointId: checkpoint.id }, [write], lease);
 */
export interface PendingWrite {
  taskId: string;
  /** State key, or a reserved channel such as `__interrupt__`, `__resume__:0`, `__step__:name`. */
  channel: string;
  value: unknown;
}

/**
 * What a saver returns for a checkpoint: the checkpoint, the values it stands for, its pending writes.
 *
 * @example
 * for await (const tuple of checkpointer.list("t1", { limit: 5 })) {
 *   const { checkpoint, values, pendingWrites }: CheckpointTuple = tuple;
 *   console.log(checkpoint.step, Object.keys(values), pendingWrites.length);
 * }
 */
export interface CheckpointTuple {
  checkpoint: Checkpoint;
  /** Channel values at this checkpoint, rebuilt from full values and deltas. */
  values: Record<string, unknown>;
  /** Writes recorded against this checkpoint, in the order they were put. */
  pendingWrites: PendingWrite[];
}

/**
 * A writer's hold on a thread. Puts made with a lease that is no longer current are refused.
 *
 * @example
 * const lease: Lease = await checkpointer.acquireLease("t1", processLeaseOwner("worker-1"), 30_000);
 * try {
 *   await checkpointer.put({ checkpoint, blobs, lease });
 * } finally {
 *   await checkpointer.releaseLease(lease);
 * }
 */
export interface Lease {
  threadId: string;
  /**
   * Who holds it. An owner made by `leaseOwnerOf` / `processLeaseOwner` also names the holding process
   * (host, pid, start time): when that process is provably dead, the lease is free before it expires.
   */
  owner: string;
  /** Grows by one every time the lease changes hands; fences stale writers. */
  epoch: number;
  /** Epoch milliseconds after which the lease is void unless renewed. */
  expiresAt: number;
}

/**
 * Arguments of {@link CheckpointSaver.put}.
 *
 * @example
 * const request: PutRequest = { checkpoint, blobs: [{ channel: "topic", version: checkpoint.id, kind: "full", value: "ladders" }], lease };
 * await checkpointer.put(request);
 */
export interface PutRequest {
  checkpoint: Checkpoint;
  /** Values of the channels this checkpoint changed (others keep the version they had). */
  blobs: ChannelBlob[];
  /** Pending writes to store with the checkpoint, in the same transaction. */
  writes?: PendingWrite[];
  /** When given, the put is refused with a {@link LeaseError} unless this lease is current. */
  lease?: Lease;
  /**
   * The checkpoint holds nothing a node of its run computed (the run's input, stored before any node
   * ran). A saver that syncs each commit to disk may commit this one without waiting for the disk: the
   * run's next write is a synced commit on the same database and carries it along (SQLite's and
   * PostgreSQL's write-ahead logs keep commits in order), and when the run has nothing else to store it
   * stores this checkpoint again, synced, before it ends. Only a power cut or a crash of the database
   * server in between can lose it, which loses no finished work, only the run's start, and the caller
   * that started it has not been answered. Set by the runtime; a saver may ignore it.
   */
  quick?: boolean;
}

/**
 * Arguments of {@link CheckpointSaver.list}.
 *
 * @example
 * const options: ListOptions = { filter: { source: "loop" }, before: checkpointId, limit: 10 };
 * for await (const tuple of checkpointer.list("t1", options)) console.log(tuple.checkpoint.step);
 */
export interface ListOptions {
  namespace?: string;
  /** Only checkpoints whose metadata has these key/values (shallow equality). */
  filter?: Record<string, unknown>;
  /** Only checkpoints older than this checkpoint id. */
  before?: string;
  limit?: number;
}

/**
 * What {@link CheckpointSaver.acquireLeaseAndGet} returns: the lease it took and the checkpoint it read,
 * both from one transaction.
 *
 * @example
 * const { lease, tuple }: LeasedTuple = await saver.acquireLeaseAndGet({ threadId: "t1" }, owner, 30_000);
 */
export interface LeasedTuple {
  lease: Lease;
  /** What `get` would have returned at that moment; undefined when the thread has no such checkpoint. */
  tuple: CheckpointTuple | undefined;
}

/**
 * Arguments of {@link CheckpointSaver.commit}: writes against an existing checkpoint, a new checkpoint,
 * and the lease given back — any of them, stored together in one transaction, all or nothing. Every
 * part names the same thread.
 *
 * @example
 * // the resume value recorded against the paused checkpoint, by the put of the checkpoint after it
 * await saver.commit({ writes: { ref: { threadId, checkpointId: paused.id }, writes: [resume] }, put, lease });
 * // the last checkpoint of a run, and the run's lease given back
 * await saver.commit({ put, lease, release: true });
 */
export interface CommitRequest {
  /** Recorded first, as {@link CheckpointSaver.putWrites} would (the checkpoint must exist, or be `put`). */
  writes?: { ref: CheckpointRef & { checkpointId: string }; writes: PendingWrite[] };
  /** Stored after `writes`, as {@link CheckpointSaver.put} would; its own `lease` is ignored for the request's. */
  put?: PutRequest;
  /** Checked once, before anything is stored: not current, and the whole commit is refused with `LEASE_LOST`. */
  lease?: Lease;
  /** Gives `lease` back once the rest is stored, as {@link CheckpointSaver.releaseLease} would. Needs `lease`. */
  release?: boolean;
}
