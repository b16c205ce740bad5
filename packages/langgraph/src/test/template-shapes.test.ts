/**
 * Shapes LangGraph.js's templates use, imported from @trellis/langgraph: they must type-check under
 * strict (this file is compiled by `tsc -b`) and run. Seen in react-agent-js (`Annotation<string>`
 * not called) and memory-agent-js (a helper returning `config.store` as a `BaseStore`).
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  Annotation,
  type BaseStore,
  END,
  InMemoryStore,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
} from "../index.js";

const Configuration = Annotation.Root({ systemPrompt: Annotation<string>, model: Annotation<string> });

function storeOf(config: LangGraphRunnableConfig): BaseStore {
  if (!config.store) throw new Error("Store not found in configuration");
  return config.store;
}

describe("template shapes", () => {
  it("Annotation<T> given without a call is a last-value key, typed T", async () => {
    expectTypeOf<typeof Configuration.State>().toEqualTypeOf<{ systemPrompt: string; model: string }>();
    const graph = new StateGraph(Configuration)
      .addNode("pick", (state) => ({ model: `${state.systemPrompt}:small` }))
      .addEdge(START, "pick")
      .addEdge("pick", END)
      .compile();
    expect(await graph.invoke({ systemPrompt: "brief" })).toEqual({ systemPrompt: "brief", model: "brief:small" });
  });

  it("config.store is a BaseStore with batch, whatever store the graph was given", async () => {
    const State = Annotation.Root({ found: Annotation<number> });
    const graph = new StateGraph(State)
      .addNode("count", async (_state, config) => {
        const store = storeOf(config);
        await store.put(["m"], "k", { v: 1 });
        const [item] = (await store.batch([{ namespace: ["m"], key: "k" }])) as Array<{ value: { v: number } }>;
        return { found: item?.value.v ?? 0 };
      })
      .addEdge(START, "count")
      .addEdge("count", END)
      .compile({ store: new InMemoryStore() });
    expect(await graph.invoke({})).toEqual({ found: 1 });
  });
});
