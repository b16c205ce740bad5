import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import type { MiddlewareHandler } from "hono";

/**
 * When the request being handled arrived at this process, on its monotonic clock (`performance.now()`):
 * stamped by the first middleware, before any await, and read by the run service to bind a resume to
 * the pause pending at that moment (docs/server.md, "Which pause a resume answers").
 */
const arrivals = new AsyncLocalStorage<number>();

/**
 * Hono middleware, mounted first: stamps the request's arrival before anything awaits (the body, the
 * auth, the stores), so a resume is bound to the pause pending when the request arrived, however long
 * it waited to be accepted.
 *
 * @example
 * app.use("*", stampArrival);
 */
export const stampArrival: MiddlewareHandler = (_c, next) => arrivals.run(performance.now(), next);

/**
 * Runs `fn` as a request that arrived at `at` (`performance.now()` of this process): for a door that is
 * not an HTTP request, such as a WebSocket message, which stamps its arrival when the message is read.
 *
 * @example
 * ws.on("message", (raw) => {
 *   const at = performance.now();
 *   queue = queue.then(() => asArrivedAt(at, () => handle(raw)));
 * });
 */
export function asArrivedAt<T>(at: number, fn: () => T): T {
  return arrivals.run(at, fn);
}

/**
 * The arrival of the request being handled (`performance.now()` of this process); now, for a caller
 * outside any request (the CLI, a cron, app code run on its own).
 *
 * @example
 * const arrivedAt = requestArrival(); // first thing, before any await
 */
export function requestArrival(): number {
  return arrivals.getStore() ?? performance.now();
}
