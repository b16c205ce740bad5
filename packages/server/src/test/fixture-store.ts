/**
 * A graph that keeps memories with `ctx.store`, and the embed function the semantic-search tests
 * configure (`"store": { "index": { "embed": "./src/test/fixture-store.ts:embed", … } }`).
 */
import { testEmbedding } from "@trellis/checkpoint/testing";
import { channel, getStore, START, StateGraph } from "@trellis/core";

/** The offline embedding of the store conformance suite (256 dimensions). */
export const embed = testEmbedding;

/** `remember` writes `text` under ["memories"] with ctx.store; `recall` lists what is there through getStore(). */
export function memoryGraph() {
  return new StateGraph({ text: channel.value(""), recalled: channel.value<string[]>([]) })
    .addNode("remember", async (s, ctx) => {
      if (!ctx.store) throw new Error("the server gave this run no store");
      await ctx.store.put(["memories"], "last", { text: s.text, by: "graph" });
      return {};
    })
    .addNode("recall", async () => {
      const items = (await getStore()?.search(["memories"], { limit: 100 })) ?? [];
      return { recalled: items.map((i) => String(i.value.text)) };
    })
    .addEdge(START, "remember")
    .addEdge("remember", "recall")
    .compile();
}
