import { channel, END, Send, START, StateGraph } from "@trellis/core";
import { langGraphApi } from "../langgraph-api.js";
import type { Impl, MakeContext, Runtime, Workload } from "../workload.js";

/**
 * (f) A parent fans out 100 Send packets to a node that runs a small two-node subgraph for each one and
 * hands its results back to the parent's list. Measures the cost of starting and finishing a nested run.
 */
export function subgraphWorkload(): Workload {
  return {
    id: "f-subgraphs/none",
    title: "(f) 100 subgraph runs fanned out",
    group: "f",
    saver: "none",
    runs: { full: 20, quick: 7 },
    warmup: { full: 3, quick: 2 },
    units: { count: 100, name: "subgraph" },
    make: (runtime, ctx) => makeSubgraphs(runtime, ctx),
    digest: (state) => (state as { results: string[] }).results,
    compat: true,
  };
}

function label(item: number): string {
  return `item-${item}`;
}

async function makeSubgraphs(runtime: Runtime, ctx: MakeContext): Promise<Impl> {
  const n = ctx.tiny ? 5 : 100;
  if (runtime === "trellis") {
    const child = new StateGraph({ item: channel.value(0), results: channel.append<string>() })
      .addNode("double", (s) => ({ item: s.item * 2 }))
      .addNode("label", (s) => ({ results: [label(s.item)] }))
      .addEdge(START, "double")
      .addEdge("double", "label")
      .addEdge("label", END)
      .compile();
    const parent = new StateGraph({ count: channel.value(0), results: channel.append<string>() })
      .addNode("sub", async (arg: { item: number }) => {
        const out = await child.invoke({ item: arg.item });
        return { results: out.results };
      })
      .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, item) => new Send("sub", { item })))
      .addEdge("sub", END)
      .compile();
    return { trial: async () => ({ run: () => parent.invoke({ count: n }) }) };
  }
  if (runtime === "langgraph" || runtime === "compat") {
    const { Annotation, END: LG_END, START: LG_START, Send: LgSend, StateGraph: LgStateGraph } = langGraphApi(runtime);
    const ChildState = Annotation.Root({
      item: Annotation<number>,
      results: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const child = new LgStateGraph(ChildState)
      .addNode("double", (s) => ({ item: s.item * 2 }))
      .addNode("label", (s) => ({ results: [label(s.item)] }))
      .addEdge(LG_START, "double")
      .addEdge("double", "label")
      .addEdge("label", LG_END)
      .compile();
    const ParentState = Annotation.Root({
      count: Annotation<number>,
      results: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const parent = new LgStateGraph(ParentState)
      .addNode("sub", async (arg: { item: number }) => {
        const out = await child.invoke({ item: arg.item });
        return { results: out.results };
      })
      .addConditionalEdges(LG_START, (s) => Array.from({ length: s.count }, (_, item) => new LgSend("sub", { item })))
      .addEdge("sub", LG_END)
      .compile();
    return { trial: async () => ({ run: () => parent.invoke({ count: n }) }) };
  }
  const double = async (s: { item: number }) => ({ item: s.item * 2 });
  const labelNode = async (s: { item: number }) => ({ results: [label(s.item)] });
  const child = async (input: { item: number }) => {
    let state = { item: input.item, results: [] as string[] };
    state = { ...state, ...(await double(state)) };
    const update = await labelNode(state);
    return { ...state, results: [...state.results, ...update.results] };
  };
  return {
    trial: async () => ({
      async run() {
        const outs = await Promise.all(Array.from({ length: n }, (_, item) => child({ item })));
        const results: string[] = [];
        for (const out of outs) results.push(...out.results);
        return { count: n, results };
      },
    }),
  };
}
