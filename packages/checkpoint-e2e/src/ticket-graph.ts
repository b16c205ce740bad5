import type { CheckpointSaver } from "@trellis/checkpoint";
import { channel, END, interrupt, START, StateGraph } from "@trellis/core";

/** The ticket's state: a question, its answer, and whether it is done. */
export const ticketState = { question: channel.value(""), answer: channel.value(""), done: channel.value(false) };

/**
 * The tests' ticket: `ask` pauses in `interrupt()` for an answer, `finish` marks it done — the bench's
 * (e) workload in miniature. `onAsk` runs each time `ask` starts (before its pause and again with the
 * answer).
 *
 * @example
 * const graph = ticketGraph(saver);
 * await graph.invoke({ question: "q" }, { threadId: "t" }); // paused
 * await graph.invoke(new Command({ resume: "a" }), { threadId: "t" }); // { question: "q", answer: "a", done: true }
 */
export function ticketGraph(saver: CheckpointSaver, options: { interruptBefore?: string[]; onAsk?: () => void } = {}) {
  const { onAsk, ...compile } = options;
  return new StateGraph(ticketState)
    .addNode("ask", (s) => {
      onAsk?.();
      return { answer: interrupt<string>({ question: s.question }) };
    })
    .addNode("finish", () => ({ done: true }))
    .addEdge(START, "ask")
    .addEdge("ask", "finish")
    .addEdge("finish", END)
    .compile({ checkpointer: saver, ...compile });
}
