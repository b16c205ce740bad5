import { channel, END, START, StateGraph } from "@trellis/core";

const schema = { n: channel.value(0) };
const pass = () => ({});

/**
 * A graph with subgraphs two levels deep and a one-node subgraph — the same shape as the LangGraph.js
 * graph whose `getGraphAsync({ xray })` output `sdk-graph-xray.test.ts` compares with.
 */
export function xrayGraph() {
  const check = new StateGraph(schema)
    .addNode("lint", pass)
    .addNode("score", pass)
    .addEdge(START, "lint")
    .addEdge("lint", "score")
    .addEdge("score", END)
    .compile({ name: "check" });
  const review = new StateGraph(schema)
    .addNode("draft", pass)
    .addNode("check", check)
    .addNode("publish", pass)
    .addEdge(START, "draft")
    .addEdge("draft", "check")
    .addEdge("check", "publish")
    .addEdge("publish", END)
    .compile({ name: "review" });
  const one = new StateGraph(schema).addNode("only", pass).addEdge(START, "only").addEdge("only", END).compile();
  return new StateGraph(schema)
    .addNode("plan", pass)
    .addNode("review", review)
    .addNode("ship", pass)
    .addNode("solo", one)
    .addEdge(START, "plan")
    .addConditionalEdges("plan", () => "go", { go: "review", skip: "ship" })
    .addEdge("review", "ship")
    .addEdge("ship", "solo")
    .addEdge("solo", END)
    .compile({ name: "xray" });
}
