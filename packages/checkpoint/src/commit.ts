import { TrellisError } from "./errors.js";
import type { CommitRequest } from "./types.js";

/**
 * The thread a {@link CommitRequest} writes to, after checking that its parts agree: every part names
 * the same thread, `release` comes with a `lease`, and there is something to do. Savers call it before
 * opening their transaction.
 *
 * @example
 * const threadId = commitThread({ put, lease, release: true }); // put.checkpoint.threadId
 */
export function commitThread(request: CommitRequest): string {
  const threads = [request.writes?.ref.threadId, request.put?.checkpoint.threadId, request.lease?.threadId].filter(
    (t): t is string => t !== undefined,
  );
  const threadId = threads[0];
  if (threadId === undefined) {
    throw new TrellisError("INVALID_ARGUMENT", "A commit needs writes, a put or a lease: it was given none of them.");
  }
  if (threads.some((t) => t !== threadId)) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `A commit writes to one thread; its parts name ${[...new Set(threads)].map((t) => `"${t}"`).join(" and ")}.`,
      { details: { threads } },
    );
  }
  if (request.release && !request.lease) {
    throw new TrellisError(
      "INVALID_ARGUMENT",
      `A commit to thread "${threadId}" asks to release a lease it was not given.`,
    );
  }
  return threadId;
}
