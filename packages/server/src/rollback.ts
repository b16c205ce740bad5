import { type Checkpoint, type CheckpointSaver, createIdGenerator, type Lease } from "@trellis/checkpoint";

const nextId = createIdGenerator();

/**
 * Undoes a run's progress on a thread, as well as the saver contract allows today (it has no call to
 * delete single checkpoints). The run's checkpoints stay in the history, but the thread's head goes
 * back to where it was before the run:
 *
 * - when the thread had no checkpoint before the run, everything the saver stored for it is deleted;
 * - otherwise a new checkpoint (metadata `source: "fork"`, `rolled_back_run: <runId>`) is written as a
 *   copy of the pre-run checkpoint — same channel versions, same next tasks — carrying only the pending
 *   writes that checkpoint had when the run started (so a resume the run recorded is dropped and its
 *   interrupt is pending again).
 *
 * Returns the id of the checkpoint the thread now stands on (undefined when it was deleted).
 *
 * @example
 * await rollbackRun(saver, { threadId, runId, preCheckpointId, preWriteCount });
 */
export async function rollbackRun(
  saver: CheckpointSaver,
  run: { threadId: string; runId: string; preCheckpointId: string | null; preWriteCount: number },
): Promise<string | undefined> {
  const owner = `rollback-${run.runId}`;
  let lease: Lease | undefined;
  for (let i = 0; i < 50 && !lease; i++) {
    try {
      lease = await saver.acquireLease(run.threadId, owner, 30_000);
    } catch {
      await new Promise((r) => setTimeout(r, 100)); // the cancelled run is still letting go of the thread
    }
  }
  try {
    if (!run.preCheckpointId) {
      await saver.deleteThread(run.threadId);
      return undefined;
    }
    const pre = await saver.get({ threadId: run.threadId, checkpointId: run.preCheckpointId });
    const head = await saver.get({ threadId: run.threadId });
    if (!pre || !head) return head?.checkpoint.id;
    if (head.checkpoint.id === pre.checkpoint.id && head.pendingWrites.length === run.preWriteCount) {
      return head.checkpoint.id; // the run changed nothing
    }
    let id = nextId();
    while (id <= head.checkpoint.id) {
      await new Promise((r) => setTimeout(r, 2)); // ids sort by time: the fork must come after the head
      id = nextId();
    }
    const checkpoint: Checkpoint = {
      ...pre.checkpoint,
      id,
      parentId: head.checkpoint.id,
      createdAt: new Date().toISOString(),
      metadata: {
        ...pre.checkpoint.metadata,
        source: "fork",
        writes: {},
        rolled_back_run: run.runId,
        forked_from: pre.checkpoint.id,
      },
    };
    await saver.put({
      checkpoint,
      blobs: [],
      writes: pre.pendingWrites.slice(0, run.preWriteCount),
      ...(lease ? { lease } : {}),
    });
    return checkpoint.id;
  } finally {
    if (lease) await saver.releaseLease(lease);
  }
}
