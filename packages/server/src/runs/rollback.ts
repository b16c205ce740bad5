import type { CheckpointSaver } from "@trellis/checkpoint";
import type { AnyGraph } from "../assistants/graph-registry.js";

/**
 * Undoes a run's progress on a thread. The run's checkpoints stay in the history, but the thread's head
 * goes back to where it was before the run:
 *
 * - when the thread had no checkpoint before the run, everything the saver stored for it is deleted;
 * - otherwise the core's `graph.fork` makes a copy of the pre-run checkpoint the head (metadata
 *   `source: "fork"`, `rolled_back_run: <runId>`), keeping only the pending writes that checkpoint had
 *   when the run started: a resume the run recorded is dropped and its interrupt is pending again, under
 *   the same id (a fork keeps its tasks' ids).
 *
 * Returns the id of the checkpoint the thread now stands on (undefined when it was deleted).
 *
 * @example
 * await rollbackRun(graph, saver, { threadId, runId, preCheckpointId, preWriteCount });
 */
export async function rollbackRun(
  graph: AnyGraph,
  saver: CheckpointSaver,
  run: { threadId: string; runId: string; preCheckpointId: string | null; preWriteCount: number },
): Promise<string | undefined> {
  if (!run.preCheckpointId) {
    await saver.deleteThread(run.threadId);
    return undefined;
  }
  const head = await saver.get({ threadId: run.threadId });
  if (!head) return undefined;
  if (head.checkpoint.id === run.preCheckpointId && head.pendingWrites.length === run.preWriteCount) {
    return head.checkpoint.id; // the run changed nothing
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const fork = await graph.fork(
        { threadId: run.threadId, runId: `rollback-${run.runId}` },
        { from: run.preCheckpointId, keepWrites: run.preWriteCount, metadata: { rolled_back_run: run.runId } },
      );
      return fork.checkpointId;
    } catch (error) {
      // the cancelled run may still be letting go of the thread
      if ((error as { code?: string }).code !== "THREAD_BUSY" || attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
