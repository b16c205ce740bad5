/**
 * The bench graphs of `graphs.ts` in LangGraph.js, for LangGraph's dev server. Self-contained (it
 * imports only @langchain/langgraph): the dev server loads a copy of it from its own install, so the
 * graphs and the server share one @langchain/langgraph.
 */
import { Annotation, END, interrupt, START, StateGraph } from "@langchain/langgraph";

/** Steps the `ticker` graph runs; the same as `TICKS` in graphs.ts. */
const TICKS = 20;

export const hitlGraph = new StateGraph(
  Annotation.Root({
    question: Annotation<string>,
    first: Annotation<string>,
    second: Annotation<string>,
    done: Annotation<boolean>,
  }),
)
  .addNode("ask1", (s) => ({ first: interrupt<{ question: string }, string>({ question: `${s.question}/1` }) }))
  .addNode("ask2", (s) => ({ second: interrupt<{ question: string }, string>({ question: `${s.question}/2` }) }))
  .addNode("finish", () => ({ done: true }))
  .addEdge(START, "ask1")
  .addEdge("ask1", "ask2")
  .addEdge("ask2", "finish")
  .addEdge("finish", END)
  .compile();

export const quickGraph = new StateGraph(Annotation.Root({ n: Annotation<number>, out: Annotation<number> }))
  .addNode("inc", (s) => ({ out: s.n + 1 }))
  .addEdge(START, "inc")
  .addEdge("inc", END)
  .compile();

export const tickerGraph = new StateGraph(Annotation.Root({ count: Annotation<number> }))
  .addNode("tick", (s) => ({ count: (s.count ?? 0) + 1 }))
  .addEdge(START, "tick")
  .addConditionalEdges("tick", (s) => (s.count < TICKS ? "tick" : END))
  .compile();
