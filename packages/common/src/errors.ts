/**
 * Every error code Trellis raises or reports, as data (`isTrellisErrorCode` reads it).
 *
 * @example
 * TRELLIS_ERROR_CODES.includes("THREAD_BUSY"); // true
 */
export const TRELLIS_ERROR_CODES = [
  "GRAPH_VALIDATION",
  "INVALID_UPDATE",
  "UNKNOWN_STATE_KEY",
  "NOT_PLAIN_DATA",
  "INVALID_STATE",
  "INVALID_RESUME",
  "GRAPH_RECURSION",
  "INVALID_ROUTE",
  "RESUME_MISMATCH",
  "AMBIGUOUS_RESUME",
  "NOTHING_TO_RESUME",
  "THREAD_PAUSED",
  "CHECKPOINTER_REQUIRED",
  "THREAD_REQUIRED",
  "CHECKPOINT_NOT_FOUND",
  "INVALID_CONFIG",
  "NODE_TIMEOUT",
  "RUN_CANCELLED",
  "RUN_TIMEOUT",
  "RUN_ROLLED_BACK",
  "THREAD_BUSY",
  "LEASE_LOST",
  "CORRUPT_CHECKPOINT",
  "SERIALIZATION",
  "MIGRATION",
  "INVALID_ARGUMENT",
  "MODEL_AUTH",
  "MODEL_RATE_LIMITED",
  "MODEL_UNAVAILABLE",
  "MODEL_TIMEOUT",
  "MODEL_BAD_RESPONSE",
  "MODEL_REQUEST_REJECTED",
  "MODEL_SCRIPT_EXHAUSTED",
  "NOT_FOUND",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "TOO_MANY_REQUESTS",
  "INTERNAL",
] as const;

/**
 * The literal union of {@link TRELLIS_ERROR_CODES}. Every error Trellis raises on purpose extends
 * {@link TrellisError}; callers branch on `code` rather than on classes; the message always says what
 * was wrong and what to do. HTTP statuses are the server's business (`httpStatusOf` in
 * `@trellis/server`).
 *
 * @example
 * function retryable(code: TrellisErrorCode): boolean {
 *   return code === "THREAD_BUSY";
 * }
 * if (error instanceof TrellisError && retryable(error.code)) await retryLater();
 */
export type TrellisErrorCode = (typeof TRELLIS_ERROR_CODES)[number];

/**
 * True when `code` is one of Trellis's error codes — for a code read back from storage or the wire.
 *
 * @example
 * isTrellisErrorCode("THREAD_BUSY"); // true
 * isTrellisErrorCode("ECONNRESET"); // false
 */
export function isTrellisErrorCode(code: unknown): code is TrellisErrorCode {
  return typeof code === "string" && (TRELLIS_ERROR_CODES as readonly string[]).includes(code);
}

const BRAND = Symbol.for("@trellis/common/TrellisError");

/**
 * Base class of all Trellis errors.
 *
 * @example
 * try { await graph.invoke(input, config); }
 * catch (e) { if (e instanceof TrellisError && e.code === "THREAD_BUSY") retryLater(); }
 */
export class TrellisError extends Error {
  /**
   * `error instanceof TrellisError` holds for a TrellisError from any copy of this package in the
   * process (a linked workspace and an installed one, say): the check reads a registry symbol, not the
   * prototype chain. Subclasses keep the ordinary check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic lint/complexity/noUselessThisAlias: `this` is the class checked against; a subclass keeps its own check
    const checked: unknown = this;
    if (checked !== TrellisError) return Function.prototype[Symbol.hasInstance].call(checked, value);
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

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
    Object.defineProperty(this, BRAND, { value: true });
  }
}
