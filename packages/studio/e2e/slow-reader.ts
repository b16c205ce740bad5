/**
 * A graph for the studio's browser test of the run timeline: `draft` starts its model call and then
 * holds the event loop for a moment before awaiting it, as a busy server does, so whoever reads the
 * run's events reads the task's start well after the call started. `publish` waits behind a static
 * breakpoint (`interruptBefore`).
 */
import { channel, END, START, StateGraph } from "@trellis/core";
import { RuleChatModel } from "@trellis/models";

/** How long `draft` holds the event loop after its model call started, in ms. */
export const HOLD_MS = 250;

/** The graph: `draft` (one model call) → breakpoint → `publish`. */
export function slowReaderGraph() {
  const model = new RuleChatModel({ model: "drafter", rules: [{ name: "draft", when: /./, reply: "A short draft." }] });
  return new StateGraph({ topic: channel.value(""), draft: channel.value("") }, { input: ["topic"] })
    .addNode("draft", async (s) => {
      const reply = model.invoke([{ role: "user", content: s.topic }]);
      const until = Date.now() + HOLD_MS;
      while (Date.now() < until) {
        // holds the event loop: nothing else on the server runs meanwhile
      }
      return { draft: String((await reply).content) };
    })
    .addNode("publish", () => ({}))
    .addEdge(START, "draft")
    .addEdge("draft", "publish")
    .addEdge("publish", END)
    .compile({ interruptBefore: ["publish"] });
}
