import { channel, END, Send, START, StateGraph } from "@trellis/core";
import { langGraphApi } from "../langgraph-api.js";
import type { Impl, Runtime, Workload } from "../workload.js";

/**
 * (c) Send fan-out: a router sends `n` packets to a worker node; each writes one item to a list
 * reducer. Measures the per-task cost of a superstep with many tasks, and how writes are merged.
 */
export function fanoutWorkload(n: number, options: { fold?: boolean } = {}): Workload {
  const big = n >= 3000;
  const fold = options.fold === true;
  return {
    id: fold ? `c-fanout-fold/${n}` : `c-fanout/${n}`,
    title: fold
      ? `(c) Send fan-out to ${n.toLocaleString("en-US")}, folded by concat in Trellis too`
      : `(c) Send fan-out to ${n.toLocaleString("en-US")}`,
    group: "c",
    saver: "none",
    runs: big ? { full: 5, quick: 2 } : n >= 1000 ? { full: 10, quick: 3 } : { full: 20, quick: 7 },
    warmup: big ? { full: 1, quick: 1 } : { full: 2, quick: 1 },
    units: { count: n, name: "task" },
    make: (runtime, ctx) => makeFanout(runtime, ctx.tiny ? 7 : n, fold),
    digest: (state) => (state as { results: number[] }).results,
    compat: true,
    // native Trellis appends where the LangGraph.js program folds by concat: the fold row is the same program
    ...(fold ? {} : { sameProgramAs: `c-fanout-fold/${n}` }),
  };
}

/**
 * `fold`: the native program folds the results with the LangGraph program's own reducer
 * (`(a, b) => a.concat(b)`, quadratic in the fan-out) instead of an append channel, so that
 * compat ÷ Trellis is the layer's cost alone on the same program.
 */
async function makeFanout(runtime: Runtime, n: number, fold: boolean): Promise<Impl> {
  if (runtime === "trellis") {
    const results = fold
      ? channel.reduce<number[]>(
          (a, b) => a.concat(b),
          () => [],
        )
      : channel.append<number>();
    const graph = new StateGraph({ count: channel.value(0), results })
      .addNode("worker", async (arg: { i: number }) => ({ results: [arg.i * 2] }))
      .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, i) => new Send("worker", { i })))
      .addEdge("worker", END)
      .compile();
    return { trial: async () => ({ run: () => graph.invoke({ count: n }) }) };
  }
  if (runtime === "langgraph" || runtime === "compat") {
    const { Annotation, END: LG_END, START: LG_START, Send: LgSend, StateGraph: LgStateGraph } = langGraphApi(runtime);
    const State = Annotation.Root({
      count: Annotation<number>,
      results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new LgStateGraph(State)
      .addNode("worker", async (arg: { i: number }) => ({ results: [arg.i * 2] }))
      .addConditionalEdges(LG_START, (s) => Array.from({ length: s.count }, (_, i) => new LgSend("worker", { i })))
      .addEdge("worker", LG_END)
      .compile();
    return { trial: async () => ({ run: () => graph.invoke({ count: n }) }) };
  }
  const worker = async (arg: { i: number }) => ({ results: [arg.i * 2] });
  return {
    trial: async () => ({
      async run() {
        const updates = await Promise.all(Array.from({ length: n }, (_, i) => worker({ i })));
        const results: number[] = [];
        for (const u of updates) results.push(...u.results);
        return { count: n, results };
      },
    }),
  };
}
