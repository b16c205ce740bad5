/**
 * A graph that records the order in which its runs start in this process: its one node takes the next
 * number (`order`), then waits `waitMs`. The fair-share tests read where a user's run came in the queue.
 */
import { channel, END, START, StateGraph } from "@trellis/core";

let started = 0;

export function orderGraph() {
  return new StateGraph({ waitMs: channel.value(0), order: channel.value(0) }, { name: "order" })
    .addNode("work", async (s) => {
      const order = ++started;
      await new Promise((r) => setTimeout(r, s.waitMs));
      return { order };
    })
    .addEdge(START, "work")
    .addEdge("work", END)
    .compile();
}
