import { channel, END, interrupt, MemorySaver, START, StateGraph } from "@trellis/core";

/**
 * A graph that asks one question and refuses new input while it waits (`onInputWhilePaused: "reject"`):
 * the run service answers such input with 409 `THREAD_PAUSED`.
 *
 * @example
 * await rejectGraph().invoke({ topic: "x" }, { threadId: "t" }); // pauses in ask
 */
export function rejectGraph() {
  return new StateGraph({ topic: channel.value(""), answer: channel.value("") })
    .addNode("ask", (s) => ({ answer: interrupt<string>({ question: `What about ${s.topic}?` }) }))
    .addEdge(START, "ask")
    .addEdge("ask", END)
    .compile({ checkpointer: new MemorySaver(), onInputWhilePaused: "reject" });
}

/**
 * A graph whose one node works for a minute (a timer, like a slow model call) unless its run is
 * stopped first: a run to interrupt with Ctrl+C.
 *
 * @example
 * const run = slowGraph().invoke({}, { threadId: "t", signal }); // ends when `signal` aborts
 */
export function slowGraph() {
  return new StateGraph({ done: channel.value(false) })
    .addNode("wait", async (_s, ctx) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 60_000);
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        ctx.signal.addEventListener("abort", stop, { once: true });
      });
      ctx.signal.throwIfAborted();
      return { done: true };
    })
    .addEdge(START, "wait")
    .addEdge("wait", END)
    .compile({ checkpointer: new MemorySaver() });
}

/**
 * A graph whose one node fails with the text it was given: a run that fails at its turn.
 *
 * @example
 * await failGraph().invoke({ reason: "nope" }, { threadId: "t" }); // throws Error("model down: nope")
 */
export function failGraph() {
  return new StateGraph({ reason: channel.value("") })
    .addNode("work", (s) => {
      throw new Error(`model down: ${s.reason}`);
    })
    .addEdge(START, "work")
    .addEdge("work", END)
    .compile({ checkpointer: new MemorySaver() });
}
