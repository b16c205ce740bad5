import { TrellisError } from "@trellis/common";
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoContentGeneratedError,
  NoOutputGeneratedError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from "ai";

/**
 * The codes a model call fails with.
 *
 * - `MODEL_AUTH`: the provider refused the credentials (401/403) or none were configured.
 * - `MODEL_RATE_LIMITED`: 429; `details.retryAfterMs` says when to try again, if the provider said.
 * - `MODEL_UNAVAILABLE`: 5xx, or the provider could not be reached.
 * - `MODEL_TIMEOUT`: no answer within the configured timeout.
 * - `MODEL_BAD_RESPONSE`: the provider answered with something that is not a valid reply.
 * - `MODEL_REQUEST_REJECTED`: another 4xx (a bad model name, a context too long...).
 * - `MODEL_SCRIPT_EXHAUSTED`: a `ScriptedChatModel` was called more times than it has replies.
 *
 * @example
 * const code: ModelErrorCode = "MODEL_RATE_LIMITED";
 */
export type ModelErrorCode =
  | "MODEL_AUTH"
  | "MODEL_RATE_LIMITED"
  | "MODEL_UNAVAILABLE"
  | "MODEL_TIMEOUT"
  | "MODEL_BAD_RESPONSE"
  | "MODEL_REQUEST_REJECTED"
  | "MODEL_SCRIPT_EXHAUSTED";

/**
 * Facts about a failed model call, in `error.details`.
 *
 * @example
 * const d = error.details as ModelErrorDetails; console.log(d.status, d.attempts);
 */
export interface ModelErrorDetails {
  provider: string;
  model: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** How long the provider asked to wait before retrying. */
  retryAfterMs?: number;
  /** Calls made, retries included. */
  attempts?: number;
  /** The start of the provider's response body, for diagnosis. */
  responseBody?: string;
}

/**
 * A model call failed. Branch on `code` ({@link ModelErrorCode}); `retryable` says whether trying the
 * same call again may succeed (it is what the built-in retries follow).
 *
 * @example
 * try { await model.invoke(messages); }
 * catch (e) { if (e instanceof ModelError && e.code === "MODEL_AUTH") console.error("check OPENAI_API_KEY"); }
 */
export class ModelError extends TrellisError {
  declare readonly code: ModelErrorCode;
  declare readonly details: Readonly<ModelErrorDetails>;
  readonly retryable: boolean;

  constructor(
    code: ModelErrorCode,
    message: string,
    options: { details: ModelErrorDetails; cause?: unknown; retryable?: boolean },
  ) {
    super(code, message, { details: { ...options.details }, cause: options.cause });
    this.retryable = options.retryable ?? (code === "MODEL_RATE_LIMITED" || code === "MODEL_UNAVAILABLE");
  }
}

/**
 * Where a failure happened, for {@link toModelError}'s messages.
 *
 * @example
 * toModelError(err, { provider: "openai", model: "gpt-4o-mini", now: Date.now() });
 */
export interface ModelErrorContext {
  provider: string;
  model: string;
  /** Current time in ms, to turn an HTTP-date `retry-after` into a delay. */
  now: number;
  /** Set when the call was aborted by the timeout, with the timeout's length. */
  timedOutAfterMs?: number;
}

/**
 * Classifies any failure of a provider call (AI SDK errors, aborts, anything else) as a
 * {@link ModelError}. A `ModelError` passes through unchanged.
 *
 * @example
 * catch (e) { throw toModelError(e, { provider, model, now: clock.now() }); }
 */
export function toModelError(error: unknown, context: ModelErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const base: ModelErrorDetails = { provider: context.provider, model: context.model };
  const who = `The ${context.provider} model "${context.model}"`;
  if (context.timedOutAfterMs !== undefined) {
    return new ModelError(
      "MODEL_TIMEOUT",
      `${who} did not answer within ${context.timedOutAfterMs} ms. ${TIMEOUT_HINT}`,
      {
        details: base,
        cause: error,
        retryable: false,
      },
    );
  }
  if (APICallError.isInstance(error)) return fromApiCallError(error, base, context);
  if (LoadAPIKeyError.isInstance(error) || LoadSettingError.isInstance(error)) {
    return new ModelError("MODEL_AUTH", `${who} has no credentials: ${error.message}`, { details: base, cause: error });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error) ||
    NoOutputGeneratedError.isInstance(error)
  ) {
    return new ModelError("MODEL_BAD_RESPONSE", `${who} sent a reply that could not be read: ${error.message}`, {
      details: base,
      cause: error,
    });
  }
  if (InvalidPromptError.isInstance(error) || UnsupportedFunctionalityError.isInstance(error)) {
    return new ModelError("MODEL_REQUEST_REJECTED", `${who} cannot take this request: ${error.message}`, {
      details: base,
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError("MODEL_UNAVAILABLE", `${who} call failed: ${message}`, {
    details: base,
    cause: error,
    retryable: false,
  });
}

const TIMEOUT_HINT = "Raise `timeoutMs` if the model needs longer, or check that the provider is reachable.";

function fromApiCallError(error: APICallError, base: ModelErrorDetails, context: ModelErrorContext): ModelError {
  const who = `The ${context.provider} model "${context.model}"`;
  const status = error.statusCode;
  const details: ModelErrorDetails = { ...base };
  if (status !== undefined) details.status = status;
  if (error.responseBody) details.responseBody = error.responseBody.slice(0, 500);
  const options = { details, cause: error };
  if (status === 401 || status === 403) {
    return new ModelError(
      "MODEL_AUTH",
      `${who} refused the credentials (HTTP ${status}). Check the API key (e.g. OPENAI_API_KEY or TRELLIS_MODEL_API_KEY).`,
      options,
    );
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(error.responseHeaders, context.now);
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
    const when = retryAfterMs === undefined ? "" : ` It asked to retry after ${retryAfterMs} ms.`;
    return new ModelError("MODEL_RATE_LIMITED", `${who} is rate limited (HTTP 429).${when}`, options);
  }
  if (status === 408) {
    return new ModelError("MODEL_TIMEOUT", `${who} timed out (HTTP 408). ${TIMEOUT_HINT}`, {
      ...options,
      retryable: true,
    });
  }
  if (status !== undefined && status >= 500) {
    return new ModelError("MODEL_UNAVAILABLE", `${who} failed on the provider's side (HTTP ${status}).`, options);
  }
  if (status !== undefined && status >= 200 && status < 300) {
    return new ModelError(
      "MODEL_BAD_RESPONSE",
      `${who} sent a reply that could not be read: ${error.message}`,
      options,
    );
  }
  if (status !== undefined && status >= 400) {
    return new ModelError(
      "MODEL_REQUEST_REJECTED",
      `${who} rejected the request (HTTP ${status}): ${error.message}`,
      options,
    );
  }
  return new ModelError("MODEL_UNAVAILABLE", `${who} could not be reached: ${error.message}`, {
    ...options,
    retryable: error.isRetryable,
  });
}

/**
 * Reads how long to wait from `retry-after-ms` (milliseconds) or `retry-after` (seconds, or an HTTP
 * date). Header names are matched case-insensitively. Returns `undefined` when neither is usable.
 *
 * @example
 * parseRetryAfter({ "retry-after": "2" }, Date.now()); // 2000
 */
export function parseRetryAfter(headers: Record<string, string> | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  const ms = lower.get("retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = lower.get("retry-after");
  if (after === undefined || after === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
