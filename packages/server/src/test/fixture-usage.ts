/**
 * Graphs whose nodes stand for model calls: each reports its token usage on the runtime's
 * `trellis:model-usage` channel, as a `ChatModel` of `@trellis/models` does (and as a model of one's own
 * may), so the server's accounting is tested without a model package.
 */
import { channel as diagnostics } from "node:diagnostics_channel";
import { TrellisError } from "@trellis/checkpoint";
import { channel, END, MODEL_USAGE_CHANNEL, START, StateGraph } from "@trellis/core";

const usage = diagnostics(MODEL_USAGE_CHANNEL);
const call = (model: string, inputTokens: number, outputTokens: number) =>
  usage.publish({
    provider: "acme",
    model,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
  });

/** `plan` calls model m1 once; `write` calls m1 then m2; with `fail: true`, `write` then fails with INVALID_ARGUMENT. */
export function usageGraph() {
  return new StateGraph({ fail: channel.value(false), done: channel.value(false) }, { name: "usage" })
    .addNode("plan", () => {
      call("m1", 1_000, 100);
      return {};
    })
    .addNode("write", (s) => {
      call("m1", 2_000, 400);
      call("m2", 500, 50);
      if (s.fail) throw new TrellisError("INVALID_ARGUMENT", "the writer failed after its model calls");
      return { done: true };
    })
    .addEdge(START, "plan")
    .addEdge("plan", "write")
    .addEdge("write", END)
    .compile();
}
