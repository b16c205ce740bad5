/**
 * A graph whose nodes stand for model calls: each reports its usage on the runtime's
 * `trellis:model-usage` channel (what a `ChatModel` of `@trellis/models` does); `review` pauses once.
 */
import { channel as diagnostics } from "node:diagnostics_channel";
import { channel, END, interrupt, MODEL_USAGE_CHANNEL, START, StateGraph } from "@trellis/core";

const usage = diagnostics(MODEL_USAGE_CHANNEL);

export function usageGraph() {
  return new StateGraph({ verdict: channel.value("") }, { name: "usage" })
    .addNode("draft", () => {
      usage.publish({
        provider: "acme",
        model: "m1",
        usage: { inputTokens: 3_000, outputTokens: 500, totalTokens: 3_500 },
      });
      return {};
    })
    .addNode("review", () => {
      const verdict = interrupt<string>({ question: "Ship it?" });
      usage.publish({ provider: "acme", model: "m1", usage: { inputTokens: 500, outputTokens: 50, totalTokens: 550 } });
      return { verdict };
    })
    .addEdge(START, "draft")
    .addEdge("draft", "review")
    .addEdge("review", END)
    .compile();
}
