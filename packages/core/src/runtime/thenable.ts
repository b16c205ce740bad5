/**
 * True for a promise or any object with a `then` method, as `await` sees it: the runtime awaits only
 * what needs it, so a superstep of synchronous nodes and routers makes no promise. @internal
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (value !== null &&
      (typeof value === "object" || typeof value === "function") &&
      typeof (value as { then?: unknown }).then === "function")
  );
}
