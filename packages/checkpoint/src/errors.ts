/**
 * The checkpoint package's own errors. The error class and its code union live in `@trellis/common`
 * (what every layer shares) and are re-exported here.
 */
import { TrellisError } from "@trellis/common";

export { isTrellisErrorCode, TRELLIS_ERROR_CODES, TrellisError, type TrellisErrorCode } from "@trellis/common";

/**
 * A writer tried to change a thread it does not hold the lease of: another writer holds it, took it
 * over, or the lease expired. Nothing was written.
 *
 * @example
 * if (e instanceof LeaseError) console.log(e.details.threadId, e.code); // "THREAD_BUSY" | "LEASE_LOST"
 */
export class LeaseError extends TrellisError {}

/**
 * A stored checkpoint, blob or write failed its checksum or could not be decoded. Only the thread named
 * in `details.threadId` is affected.
 *
 * @example
 * if (e instanceof CorruptCheckpointError) alertOps(e.details.threadId);
 */
export class CorruptCheckpointError extends TrellisError {
  constructor(message: string, details: Record<string, unknown>, cause?: unknown) {
    super("CORRUPT_CHECKPOINT", message, { details, cause });
  }
}

/**
 * The error every saver gives when writes name a checkpoint that is not stored: `CHECKPOINT_NOT_FOUND`.
 *
 * @example
 * if (!stored) throw writesTargetMissing({ threadId: "t1", checkpointId: "c9" });
 */
export function writesTargetMissing(ref: { threadId: string; namespace?: string; checkpointId: string }): TrellisError {
  return new TrellisError(
    "CHECKPOINT_NOT_FOUND",
    `Cannot record writes: checkpoint ${ref.checkpointId} of thread "${ref.threadId}" does not exist.`,
    { details: { ...ref } },
  );
}
