/**
 * Every error Trellis raises on purpose extends {@link TrellisError}. Callers branch on `code`, a
 * literal union, rather than on classes; the message always says what was wrong and what to do.
 */
export type TrellisErrorCode =
  | "GRAPH_VALIDATION"
  | "INVALID_UPDATE"
  | "UNKNOWN_STATE_KEY"
  | "NOT_PLAIN_DATA"
  | "INVALID_STATE"
  | "INVALID_RESUME"
  | "GRAPH_RECURSION"
  | "INVALID_ROUTE"
  | "RESUME_MISMATCH"
  | "AMBIGUOUS_RESUME"
  | "NOTHING_TO_RESUME"
  | "THREAD_PAUSED"
  | "CHECKPOINTER_REQUIRED"
  | "THREAD_REQUIRED"
  | "CHECKPOINT_NOT_FOUND"
  | "INVALID_CONFIG"
  | "NODE_TIMEOUT"
  | "RUN_CANCELLED"
  | "RUN_TIMEOUT"
  | "RUN_ROLLED_BACK"
  | "THREAD_BUSY"
  | "LEASE_LOST"
  | "CORRUPT_CHECKPOINT"
  | "SERIALIZATION"
  | "MIGRATION"
  | "INVALID_ARGUMENT"
  | "MODEL_AUTH"
  | "MODEL_RATE_LIMITED"
  | "MODEL_UNAVAILABLE"
  | "MODEL_TIMEOUT"
  | "MODEL_BAD_RESPONSE"
  | "MODEL_REQUEST_REJECTED"
  | "MODEL_SCRIPT_EXHAUSTED"
  | "NOT_FOUND"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL";

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
  RESUME_MISMATCH: 400,
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
 * True when `code` is one of Trellis's error codes — for a code read back from storage or the wire.
 *
 * @example
 * isTrellisErrorCode("THREAD_BUSY"); // true
 * isTrellisErrorCode("ECONNRESET"); // false
 */
export function isTrellisErrorCode(code: unknown): code is TrellisErrorCode {
  return typeof code === "string" && Object.hasOwn(HTTP_STATUS, code);
}

/**
 * Maps an error code to the HTTP status a server should answer with.
 *
 * @example
 * toHttpStatus("THREAD_BUSY"); // 409
 */
export function toHttpStatus(code: TrellisErrorCode): number {
  return HTTP_STATUS[code];
}

/**
 * Base class of all Trellis errors.
 *
 * @example
 * try { await graph.invoke(input, config); }
 * catch (e) { if (e instanceof TrellisError && e.code === "THREAD_BUSY") retryLater(); }
 */
export class TrellisError extends Error {
  readonly code: TrellisErrorCode;
  /** Structured facts about the failure (node, key, thread...), for logs and API answers. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: TrellisErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
  }
}

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
