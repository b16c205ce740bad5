import { createHash } from "node:crypto";
import {
  type Checkpoint,
  type CheckpointSaver,
  createIdGenerator,
  type Lease,
  type PendingWrite,
} from "@trellis/checkpoint";

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
 * Task ids are derived from the checkpoint id, and interrupt ids from task ids, so the copied writes are
 * moved to the new checkpoint's task ids and the pending interrupts get the ids their nodes will ask
 * with when they run again (the value, node and question stay the same; the id changes, as on any fork).
 * Interrupts raised inside `withScope` keep their old id, and a subgraph paused inside a rolled-back
 * task starts over, since its namespace names the task.
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
      writes: rebaseWrites(pre.pendingWrites.slice(0, run.preWriteCount), pre.checkpoint.id, id),
      ...(lease ? { lease } : {}),
    });
    return checkpoint.id;
  } finally {
    if (lease) await saver.releaseLease(lease);
  }
}

/** The id core gives the `index`-th interrupt of a task (the formula of `interruptId` in @trellis/core). */
function interruptIdOf(namespace: string, taskId: string, index: number): string {
  return createHash("sha1").update(`${namespace}\u0000${taskId}\u0000${index}`).digest("hex").slice(0, 32);
}

/** Moves pending writes from the task ids of checkpoint `from` to those of checkpoint `to`. @internal */
export function rebaseWrites(writes: PendingWrite[], from: string, to: string): PendingWrite[] {
  const ids = new Map<string, string>();
  const taskOf = (taskId: string) => (taskId.startsWith(`${from}.`) ? `${to}${taskId.slice(from.length)}` : taskId);
  for (const w of writes) {
    if (w.channel !== "__interrupt__" || !Array.isArray(w.value)) continue;
    for (const item of w.value as Array<{ id: string; namespace?: string }>) {
      for (let index = 0; index < 1000; index++) {
        if (interruptIdOf(item.namespace ?? "", w.taskId, index) !== item.id) continue;
        ids.set(item.id, interruptIdOf(item.namespace ?? "", taskOf(w.taskId), index));
        break;
      }
    }
  }
  const rekey = (value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [ids.get(k) ?? k, v]))
      : value;
  return writes.map((w) => {
    const taskId = taskOf(w.taskId);
    if (w.channel === "__interrupt__" && Array.isArray(w.value)) {
      const value = (w.value as Array<{ id: string }>).map((i) => ({ ...i, id: ids.get(i.id) ?? i.id }));
      return { ...w, taskId, value };
    }
    if (w.channel === "__resume__") return { ...w, taskId, value: rekey(w.value) };
    return { ...w, taskId };
  });
}
