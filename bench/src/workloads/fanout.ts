import { channel, END, Send, START, StateGraph } from "@trellis/core";
import { langGraphApi } from "../langgraph-api.js";
import type { Impl, MakeContext, Runtime, Workload } from "../workload.js";

/**
 * (c) Send fan-out: a router sends `n` packets to a worker node; each writes one item to a list
 * reducer. Measures the per-task cost of a superstep with many tasks, and how writes are merged.
 */
export function fanoutWorkload(n: number): Workload {
  const big = n >= 3000;
  return {
    id: `c-fanout/${n}`,
    title: `(c) Send fan-out to ${n.toLocaleString("en-US")}`,
    group: "c",
    saver: "none",
    runs: big ? { full: 5, quick: 2 } : n >= 1000 ? { full: 10, quick: 3 } : { full: 20, quick: 7 },
    warmup: big ? { full: 1, quick: 1 } : { full: 2, quick: 1 },
    units: { count: n, name: "task" },
    make: (runtime, ctx) => makeFanout(runtime, ctx.tiny ? 7 : n, ctx),
    digest: (state) => (state as { results: number[] }).results,
    compat: true,
  };
}

async function makeFanout(runtime: Runtime, n: number, _ctx: MakeContext): Promise<Impl> {
  if (runtime === "trellis") {
    const graph = new StateGraph({ count: channel.value(0), results: channel.append<number>() })
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
