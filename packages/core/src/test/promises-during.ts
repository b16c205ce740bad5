import { createHook } from "node:async_hooks";

/**
 * Promises created while `fn` runs: what the `AsyncLocalStorage` hook is paid for, one by one. For
 * tests that pin how many promises a run makes.
 *
 * @example
 * expect(await promisesDuring(() => graph.invoke({}))).toBeLessThan(10);
 */
export async function promisesDuring(fn: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") count++;
    },
  }).enable();
  try {
    await fn();
  } finally {
    hook.disable();
  }
  return count;
}
