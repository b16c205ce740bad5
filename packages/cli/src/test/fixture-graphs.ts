import { channel, END, MemorySaver, START, StateGraph } from "@trellis/core";

/**
 * A graph with a static breakpoint before `publish` and no interrupt value: the terminal asks for a
 * JSON state update there.
 *
 * @example
 * await breakpointGraph().invoke({ text: "hi" }, { threadId: "t" }); // pauses before publish
 */
export function breakpointGraph() {
  return new StateGraph({ text: channel.value(""), published: channel.value(false), note: channel.value("") })
    .addNode("draft", (s) => ({ text: `${s.text}!` }))
    .addNode("publish", (s) => ({ published: true, note: s.note || "no note" }))
    .addEdge(START, "draft")
    .addEdge("draft", "publish")
    .addEdge("publish", END)
    .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"] });
}
