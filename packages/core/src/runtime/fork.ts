import { type Checkpoint, type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import type { GraphSpec } from "../graph/spec.js";
import { acquireLease, executionLeaseOwner } from "./lease-keeper.js";

/**
 * Options of `CompiledGraph.fork`.
 *
 * @example
 * const options: ForkOptions = { from: before.checkpointId, keepWrites: 0, metadata: { reason: "retry" } };
 * await graph.fork({ threadId }, options);
 */
export interface ForkOptions {
  /** The checkpoint to copy: the thread's head becomes a copy of it. */
  from: string;
  /**
   * How many of its pending writes (answers, interrupts, finished tasks' results, in the order they
   * were stored) the copy keeps. Default: all.
   */
  keepWrites?: number;
  /** Added to the new checkpoint's metadata. */
  metadata?: Record<string, unknown>;
}

/**
 * Makes a copy of checkpoint `from` the thread's head: a new checkpoint (metadata `source: "fork"`,
 * `forked_from`) after the current head, with the same values, the same next tasks under the same task
 * ids — so pending interrupts keep their ids and a paused subgraph its place — and the first
 * `keepWrites` of its pending writes. The history before it stays. @internal
 */
export async function forkThread(
  spec: GraphSpec,
  saver: CheckpointSaver,
  config: { threadId: string; runId?: string | undefined },
  options: ForkOptions,
): Promise<{ threadId: string; checkpointId: string }> {
  const { threadId } = config;
  const lease = await acquireLease(saver, threadId, spec.clock, {
    owner: executionLeaseOwner(config),
    ttlMs: spec.leaseTtlMs,
  });
  try {
    const source = await saver.get({ threadId, checkpointId: options.from });
    if (!source) {
      throw new TrellisError(
        "CHECKPOINT_NOT_FOUND",
        `Thread "${threadId}" has no checkpoint ${options.from} to fork.`,
        {
          details: { threadId, checkpointId: options.from },
        },
      );
    }
    const head = await saver.get({ threadId });
    const parentId = head?.checkpoint.id ?? source.checkpoint.id;
    const metadata = source.checkpoint.metadata as Record<string, unknown>;
    const checkpoint: Checkpoint = {
      ...source.checkpoint,
      id: spec.nextId(parentId),
      parentId,
      createdAt: new Date(spec.clock.now()).toISOString(),
      metadata: {
        ...source.checkpoint.metadata,
        ...options.metadata,
        source: "fork",
        writes: {},
        forked_from: source.checkpoint.id,
        task_base: typeof metadata.task_base === "string" ? metadata.task_base : source.checkpoint.id,
      },
    };
    const writes = source.pendingWrites.slice(0, options.keepWrites ?? source.pendingWrites.length);
    await saver.put({ checkpoint, blobs: [], writes, lease: lease.current });
    return { threadId, checkpointId: checkpoint.id };
  } finally {
    await lease.release();
  }
}
