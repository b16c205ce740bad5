import { MemorySaver } from "@trellis/checkpoint";
import { channel, END, Send, START, StateGraph } from "@trellis/core";

/**
 * CPU time per superstep of workload (a), Trellis alone: a 100-node chain (each node adds one to a
 * counter) run `runs` times in this process, timed with `process.cpuUsage()` rather than the wall clock,
 * so other processes on a shared machine inflate it far less than the bench's wall-clock medians. The
 * graph is compiled once; with the memory saver each run gets its own thread, deleted after it, or with
 * `memory-thread` every run continues one thread (its history kept), or with `memory-thread10` ten runs
 * continue a thread before the next thread starts (the bench's one-thread row: up to 1,000 checkpoints).
 *
 *   node bench/dist/superstep-cpu.js none 3000     # also: memory, memory-thread, async (every node returns a promise)
 *   node bench/dist/superstep-cpu.js fanout-3000 20  # (c): CPU time per Send task, fan-out to 3,000
 */
async function main(): Promise<void> {
  const [mode = "none", runsText = "3000"] = process.argv.slice(2);
  if (mode.startsWith("fanout-")) return fanout(Number.parseInt(mode.slice("fanout-".length), 10), runsText);
  if (!["none", "memory", "memory-thread", "memory-thread10", "async"].includes(mode)) {
    throw new Error(`unknown mode ${mode}`);
  }
  const oneThread = mode === "memory-thread";
  const tenPerThread = mode === "memory-thread10";
  const runs = Number.parseInt(runsText, 10);
  const n = 100;
  const names = Array.from({ length: n }, (_, i) => `node_${i}`);
  const builder = new StateGraph({ k: channel.value(0) });
  for (const name of names) {
    builder.addNode(name, mode === "async" ? async (s) => ({ k: s.k + 1 }) : (s) => ({ k: s.k + 1 }));
  }
  builder.addEdge(START, names[0] as string);
  for (let i = 1; i < n; i++) builder.addEdge(names[i - 1] as string, names[i] as string);
  builder.addEdge(names[n - 1] as string, END);
  const saver = mode.startsWith("memory") ? new MemorySaver() : undefined;
  const graph = builder.compile(saver ? { checkpointer: saver } : {});
  let invokes = 0;
  const once = async (name: string) => {
    invokes++;
    const threadId = oneThread ? "one" : tenPerThread ? `ten-${Math.floor(invokes / 10)}` : name;
    const out = await graph.invoke({ k: 0 }, { threadId, recursionLimit: n + 10 });
    if (out.k !== n) throw new Error(`chain ended at ${out.k}`);
    if (!oneThread && (!tenPerThread || invokes % 10 === 9)) await saver?.deleteThread(threadId);
  };
  for (let i = 0; i < 200; i++) await once(`warm-${i}`);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < runs; i++) await once(`t-${i}`);
  const used = process.cpuUsage(cpu);
  const perNode = (x: number) => (x / runs / n).toFixed(2);
  process.stdout.write(
    `a-chain ${mode}: ${perNode((used.user + used.system) / 1)} µs CPU per node, ${perNode((performance.now() - start) * 1000)} µs wall (${runs} runs)\n`,
  );
}

/** Workload (c): one router sends `n` packets to a worker that appends to a list. */
async function fanout(n: number, runsText: string): Promise<void> {
  const runs = Number.parseInt(runsText, 10);
  const graph = new StateGraph({ count: channel.value(0), results: channel.append<number>() })
    .addNode("worker", async (arg: { i: number }) => ({ results: [arg.i * 2] }))
    .addConditionalEdges(START, (s) => Array.from({ length: s.count }, (_, i) => new Send("worker", { i })))
    .addEdge("worker", END)
    .compile();
  for (let i = 0; i < Math.max(2, Math.ceil(30_000 / n)); i++) await graph.invoke({ count: n });
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const out = await graph.invoke({ count: n });
    if (out.results.length !== n) throw new Error(`fan-out returned ${out.results.length} results`);
  }
  const used = process.cpuUsage(cpu);
  process.stdout.write(
    `c-fanout ${n}: ${((used.user + used.system) / runs / n).toFixed(2)} µs CPU per task, ${(((performance.now() - start) * 1000) / runs / n).toFixed(2)} µs wall (${runs} runs)\n`,
  );
}

void main();
