/**
 * A graph with input and output schemas for the server tests: a caller gives `topic`; the graph keeps
 * `revisions` and `status` to itself and returns `draft` and `status`.
 */
import { channel, END, interrupt, START, StateGraph } from "@trellis/core";

export const authorGraph = new StateGraph(
  {
    topic: channel.value(""),
    draft: channel.value(""),
    revisions: channel.value(0),
    status: channel.value("new"),
  },
  { name: "author", input: ["topic"], output: ["draft", "status"] },
)
  .addNode("write", (s) => ({ draft: `About ${s.topic}`, revisions: s.revisions + 1, status: "drafted" }))
  .addNode("review", () => ({ status: interrupt<string>("approve the draft?") }))
  .addEdge(START, "write")
  .addEdge("write", "review")
  .addEdge("review", END)
  .compile();
