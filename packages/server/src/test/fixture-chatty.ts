/**
 * A graph whose one node waits `waitMs`, then streams `count` message chunks: a run with many events,
 * for the replay tests.
 */
import { channel, END, emitMessageChunk, START, StateGraph } from "@trellis/core";

export function chattyGraph() {
  return new StateGraph(
    { count: channel.value(10), waitMs: channel.value(0), messages: channel.messages() },
    { name: "chatty" },
  )
    .addNode("talk", async (s) => {
      await new Promise((r) => setTimeout(r, s.waitMs));
      for (let i = 0; i < s.count; i++) {
        emitMessageChunk({ type: "text", messageId: "m1", text: `chunk ${i} ` });
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 2));
      }
      return {};
    })
    .addEdge(START, "talk")
    .addEdge("talk", END)
    .compile();
}
