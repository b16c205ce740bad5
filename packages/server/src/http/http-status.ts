/**
 * The HTTP status of each Trellis error code: the server's mapping, kept beside its doors (the packages
 * below the server know codes, not HTTP). A code added to `TRELLIS_ERROR_CODES` without a status here
 * fails the typecheck.
 */
import type { TrellisErrorCode } from "@trellis/checkpoint";

const HTTP_STATUS: Record<TrellisErrorCode, number> = {
  GRAPH_VALIDATION: 400,
  INVALID_UPDATE: 400,
  UNKNOWN_STATE_KEY: 400,
  NOT_PLAIN_DATA: 400,
  // a caller's value that its declared schema refuses (a state key's, or a node's resumeSchema)
  INVALID_STATE: 400,
  INVALID_RESUME: 400,
  GRAPH_RECURSION: 500,
  INVALID_ROUTE: 500,
  // the answer is for a pause that is not (or no longer) the thread's: a conflict with its state, retried by interrupt id
  RESUME_MISMATCH: 409,
  AMBIGUOUS_RESUME: 400,
  NOTHING_TO_RESUME: 409,
  THREAD_PAUSED: 409,
  CHECKPOINTER_REQUIRED: 400,
  THREAD_REQUIRED: 400,
  CHECKPOINT_NOT_FOUND: 404,
  INVALID_CONFIG: 400,
  NODE_TIMEOUT: 504,
  RUN_CANCELLED: 499,
  // a server run past its time limit (`limits.runTimeMs`): stopped, its progress kept
  RUN_TIMEOUT: 504,
  // a run cancelled by multitask `rollback`, its progress removed: another run took the thread
  RUN_ROLLED_BACK: 409,
  THREAD_BUSY: 409,
  LEASE_LOST: 409,
  CORRUPT_CHECKPOINT: 500,
  SERIALIZATION: 400,
  MIGRATION: 500,
  INVALID_ARGUMENT: 400,
  // Model provider failures are the server's upstream failing, not the client's request: 502/504,
  // except a rate limit, which the client can act on by retrying later.
  MODEL_AUTH: 502,
  MODEL_RATE_LIMITED: 429,
  MODEL_UNAVAILABLE: 502,
  MODEL_TIMEOUT: 504,
  MODEL_BAD_RESPONSE: 502,
  MODEL_REQUEST_REJECTED: 502,
  MODEL_SCRIPT_EXHAUSTED: 500,
  // Server API: a resource the caller may not see is NOT_FOUND too, so ids do not leak.
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  // a request the caller may not make from where it comes (a WebSocket upgrade from a foreign Origin)
  FORBIDDEN: 403,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  // a per-user limit (open streams) is reached: retry once one closes
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
};

/**
 * The HTTP status a door answers an error code with.
 *
 * @example
 * httpStatusOf("THREAD_BUSY"); // 409
 */
export function httpStatusOf(code: TrellisErrorCode): number {
  return HTTP_STATUS[code];
}
