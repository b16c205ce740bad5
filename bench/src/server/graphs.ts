/**
 * The graphs the server bench serves, in Trellis. The floor server and LangGraph's dev server
 * (`langgraph-graphs.ts`) answer the same requests with the same results.
 */
import { channel, END, interrupt, START, StateGraph } from "@trellis/core";

/** Steps the `ticker` graph runs: one `updates` event each. */
export const TICKS = 20;

/**
 * (i) Human in the loop: asks twice, then finishes. A run pauses in `ask1`, the first resume pauses
 * in `ask2`, the second resume ends with `done: true` and both answers.
 */
export function hitlGraph() {
  return new StateGraph(
    { question: channel.value(""), first: channel.value(""), second: channel.value(""), done: channel.value(false) },
    { name: "hitl" },
  )
    .addNode("ask1", (s) => ({ first: interrupt<string>({ question: `${s.question}/1` }) }))
    .addNode("ask2", (s) => ({ second: interrupt<string>({ question: `${s.question}/2` }) }))
    .addNode("finish", () => ({ done: true }))
    .addEdge(START, "ask1")
    .addEdge("ask1", "ask2")
    .addEdge("ask2", "finish")
    .addEdge("finish", END)
    .compile();
}

/** (ii) One trivial step: `{ n }` in, `{ n, out: n + 1 }` out. */
export function quickGraph() {
  return new StateGraph({ n: channel.value(0), out: channel.value(0) }, { name: "quick" })
    .addNode("inc", (s) => ({ out: s.n + 1 }))
    .addEdge(START, "inc")
    .addEdge("inc", END)
    .compile();
}

/** (iii) {@link TICKS} steps in a loop, each adding one to `count`: one `updates` event per step. */
export function tickerGraph() {
  return new StateGraph({ count: channel.value(0) }, { name: "ticker" })
    .addNode("tick", (s) => ({ count: s.count + 1 }))
    .addEdge(START, "tick")
    .addConditionalEdges("tick", (s) => (s.count < TICKS ? "tick" : END))
    .compile();
}
