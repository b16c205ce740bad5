import type { Clock } from "@trellis/common";
import type { ModelError } from "./model-errors.js";

/**
 * How a provider model retries failed calls. Only errors marked `retryable` are retried: rate limits
 * (after the provider's `retry-after` when it sent one) and 5xx / connection failures.
 *
 * @example
 * createChatModel({ provider: "openai", model: "gpt-4o-mini", retry: { maxRetries: 4, initialDelayMs: 500 } });
 */
export interface RetryOptions {
  /** Retries after the first call. Default 2. */
  maxRetries?: number;
  /** Wait before the first retry; doubles each time. Default 1000. */
  initialDelayMs?: number;
  /** Longest wait between two calls. Default 30 000. */
  maxDelayMs?: number;
  /** A `retry-after` longer than this is not waited for: the error is thrown at once. Default 60 000. */
  maxRetryAfterMs?: number;
  /** Waits `ms`; rejects when `signal` aborts. Defaults to a timer on the model's clock. Inject it in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * The wait before retry number `retry` (0-based) after `error`, or `undefined` when the error must not
 * be retried.
 *
 * @example
 * retryDelay(rateLimitError, 0, {}); // the error's retryAfterMs, or 1000
 */
export function retryDelay(error: ModelError, retry: number, options: RetryOptions): number | undefined {
  if (!error.retryable || retry >= (options.maxRetries ?? 2)) return undefined;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const retryAfter = error.details.retryAfterMs;
  if (retryAfter !== undefined) return retryAfter <= (options.maxRetryAfterMs ?? 60_000) ? retryAfter : undefined;
  return Math.min(maxDelay, (options.initialDelayMs ?? 1000) * 2 ** retry);
}

/**
 * A sleep on `clock` that rejects with the signal's reason when `signal` aborts.
 *
 * @example
 * await sleepOn(systemClock, 250, controller.signal);
 */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
