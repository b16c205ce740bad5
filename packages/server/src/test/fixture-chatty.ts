/**
 * A graph whose one node waits `waitMs`, then streams `count` message chunks (each padded to about
 * `chunkBytes`): a run with many events, or a few large ones, for the replay tests.
 */
import { channel, END, emitMessageChunk, START, StateGraph } from "@trellis/core";

export function chattyGraph() {
  return new StateGraph(
    { count: channel.value(10), waitMs: channel.value(0), chunkBytes: channel.value(0), messages: channel.messages() },
    { name: "chatty" },
  )
    .addNode("talk", async (s) => {
      await new Promise((r) => setTimeout(r, s.waitMs));
      for (let i = 0; i < s.count; i++) {
        const pad = s.chunkBytes > 0 ? "x".repeat(s.chunkBytes) : "";
        emitMessageChunk({ type: "text", messageId: "m1", text: `chunk ${i} ${pad}` });
        if (i % 50 === 49) await new Promise((r) => setTimeout(r, 2));
      }
      return {};
    })
    .addEdge(START, "talk")
    .addEdge("talk", END)
    .compile();
}
