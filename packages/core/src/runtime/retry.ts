import { type Clock, TrellisError } from "@trellis/checkpoint";

/**
 * How a node is retried when it throws. Interrupts and cancellations are never retried.
 *
 * @example
 * builder.addNode("fetch", fetchNode, { retryPolicy: { maxAttempts: 5, initialInterval: 200 } });
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 3. */
  maxAttempts?: number;
  /** Milliseconds before the first retry. Default 500. */
  initialInterval?: number;
  /** Each wait is the previous one times this. Default 2. */
  backoffFactor?: number;
  /** Longest wait in milliseconds. Default 128,000. */
  maxInterval?: number;
  /** Spread waits randomly by up to 100% to avoid thundering herds. Default true. */
  jitter?: boolean;
  /** Which errors to retry. Default: every error except Trellis's own (bad updates, timeouts' causes…). */
  retryOn?: (error: unknown) => boolean;
}

/** @internal */
export function nodeRetryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(
    policy.maxInterval ?? 128_000,
    (policy.initialInterval ?? 500) * (policy.backoffFactor ?? 2) ** (attempt - 1),
  );
  return policy.jitter === false ? base : base * (1 + random());
}

/** @internal */
export function shouldRetry(policy: RetryPolicy | undefined, error: unknown, attempt: number): boolean {
  if (!policy) return false;
  if (attempt >= (policy.maxAttempts ?? 3)) return false;
  return policy.retryOn ? policy.retryOn(error) : !(error instanceof TrellisError);
}

/** Waits `ms` on `clock`; rejects with the signal's reason when it aborts first. @internal */
export function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal.reason);
    };
    const handle = clock.setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
