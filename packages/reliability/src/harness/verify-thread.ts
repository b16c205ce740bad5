import type { CheckpointSaver, CheckpointTuple } from "@trellis/checkpoint";
import { TrellisError } from "@trellis/checkpoint";

/** What {@link verifyThread} found about one thread's checkpoint chain. */
export interface ThreadReport {
  threadId: string;
  /** Checkpoints listed, newest first. */
  checkpoints: CheckpointTuple[];
  /** Each checkpoint's parent is the next older one, and the oldest has no parent. */
  linear: boolean;
  /** What is wrong, one line each (empty when the chain is sound). */
  problems: string[];
  /** The typed error a read of the thread raised (e.g. CORRUPT_CHECKPOINT), if any. */
  error?: TrellisError;
}

/**
 * Reads a thread's whole history and checks that it is one linear chain: ids strictly decreasing,
 * every checkpoint the child of the next older one, no two children of one parent, the oldest a root
 * (unless `pruned`: then its parent may be gone). A read that fails with a {@link TrellisError} is
 * reported in `error`; any other failure is thrown.
 *
 * @example
 * const report = await verifyThread(saver, threadId);
 * expect(report.problems).toEqual([]);
 */
export async function verifyThread(
  saver: CheckpointSaver,
  threadId: string,
  options: { namespace?: string; pruned?: boolean } = {},
): Promise<ThreadReport> {
  const checkpoints: CheckpointTuple[] = [];
  const problems: string[] = [];
  let error: TrellisError | undefined;
  try {
    for await (const t of saver.list(threadId, { namespace: options.namespace ?? "" })) checkpoints.push(t);
  } catch (e) {
    if (!(e instanceof TrellisError)) throw e;
    error = e;
    problems.push(`read failed: ${e.code}: ${e.message}`);
  }
  const children = new Map<string, string[]>();
  for (let i = 0; i < checkpoints.length; i++) {
    const cp = (checkpoints[i] as CheckpointTuple).checkpoint;
    const older = checkpoints[i + 1]?.checkpoint;
    if (cp.parentId !== null) children.set(cp.parentId, [...(children.get(cp.parentId) ?? []), cp.id]);
    if (older) {
      if (!(older.id < cp.id)) problems.push(`ids out of order: ${older.id} listed after ${cp.id}`);
      if (cp.parentId !== older.id) {
        problems.push(`not linear: ${cp.id} has parent ${cp.parentId ?? "none"}, the next older is ${older.id}`);
      }
    } else if (cp.parentId !== null && !options.pruned) {
      problems.push(`dangling parent: ${cp.id} names parent ${cp.parentId}, which is not stored`);
    }
  }
  for (const [parent, kids] of children) {
    if (kids.length > 1) problems.push(`fork: ${parent} has ${kids.length} children (${kids.join(", ")})`);
  }
  const report: ThreadReport = { threadId, checkpoints, linear: problems.length === 0, problems };
  if (error) report.error = error;
  return report;
}
