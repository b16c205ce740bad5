import { channel, END, START, StateGraph } from "@trellis/core";

/**
 * A node that fails with a plain `TypeError` (not a Trellis error).
 *
 * @example
 * await typeErrorGraph().invoke({}, { threadId: "t" }); // throws TypeError
 */
export function typeErrorGraph() {
  return new StateGraph({ n: channel.value(0) }, { name: "type-error" })
    .addNode("boom", () => {
      throw new TypeError("n.toFixed is not a function");
    })
    .addEdge(START, "boom")
    .addEdge("boom", END)
    .compile();
}

/**
 * A node that waits until its run is stopped (by a time limit, a cancel), then fails with the reason.
 *
 * @example
 * // served with limits.runTimeMs: the run ends as `timeout`
 */
export function waitForeverGraph() {
  return new StateGraph({ n: channel.value(0) }, { name: "wait-forever" })
    .addNode("wait", (_s, ctx) => {
      return new Promise<never>((_resolve, reject) => {
        if (ctx.signal.aborted) reject(ctx.signal.reason);
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
      });
    })
    .addEdge(START, "wait")
    .addEdge("wait", END)
    .compile();
}
