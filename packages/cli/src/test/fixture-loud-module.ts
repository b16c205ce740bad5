/**
 * A graph module that says when it is evaluated, so a test can tell what `trellis run` printed before
 * it loaded the project's graphs.
 */
import type { CheckpointSaver } from "@trellis/checkpoint";
import { channel, END, START, StateGraph } from "@trellis/core";

process.stdout.write("fixture module evaluated\n");

/** One node that copies its topic. */
export function loudGraph(checkpointer?: CheckpointSaver) {
  return new StateGraph({ topic: channel.value("cooling"), copy: channel.value("") })
    .addNode("copy", (s) => ({ copy: s.topic }))
    .addEdge(START, "copy")
    .addEdge("copy", END)
    .compile(checkpointer ? { checkpointer } : {});
}
