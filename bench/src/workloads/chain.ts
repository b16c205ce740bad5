import type { CheckpointSaver } from "@trellis/checkpoint";
import { channel, END, START, StateGraph } from "@trellis/core";
import { floorStore } from "../floor-store.js";
import { langGraphApi, langGraphApiSaver } from "../langgraph-api.js";
import { trellisSaver } from "../savers.js";
import { type Impl, type MakeContext, type Runtime, type SaverKind, saverLabel, type Workload } from "../workload.js";

/** Invokes per run of the one-thread variant: the thread's history grows to 1,000 checkpoints. */
const ONE_THREAD_INVOKES = 10;

/**
 * (a) A chain of 100 nodes; each adds one to a counter. Measures the cost of a superstep with nothing
 * else going on: planning, applying one write, routing, and (with a saver) one checkpoint per node.
 * With `oneThread`, a run is ten invokes on one thread of one saver, so each superstep's checkpoint joins
 * a history of up to 1,000 (a long conversation) instead of starting a fresh thread.
 */
export function chainWorkload(saver: SaverKind, oneThread = false): Workload {
  const invokes = oneThread ? ONE_THREAD_INVOKES : 1;
  return {
    id: `a-chain/${saver}${oneThread ? "-thread" : ""}`,
    title: `(a) 100-node chain, ${saverLabel(saver)}${oneThread ? `, ${invokes} invokes on one thread` : ""}`,
    group: "a",
    saver,
    runs: { full: 30, quick: 10 },
    warmup: { full: 5, quick: 3 },
    units: { count: 100 * invokes, name: "node" },
    make: (runtime, ctx) => makeChain(runtime, saver, ctx, invokes),
    digest: (state) => ({ k: (state as { k: number }).k }),
    compat: true,
  };
}

async function makeChain(runtime: Runtime, saverKind: SaverKind, ctx: MakeContext, invokes: number): Promise<Impl> {
  const n = ctx.tiny ? 5 : 100;
  const names = Array.from({ length: n }, (_, i) => `node_${i}`);
  if (runtime === "trellis") {
    const builder = new StateGraph({ k: channel.value(0) });
    for (const name of names) builder.addNode(name, (s) => ({ k: s.k + 1 }));
    builder.addEdge(START, names[0] as string);
    for (let i = 1; i < n; i++) builder.addEdge(names[i - 1] as string, names[i] as string);
    builder.addEdge(names[n - 1] as string, END);
    if (saverKind === "memory") {
      // An application compiles its graph once: one graph and saver per worker, a new thread per trial,
      // deleted after it (a compile per trial left its garbage to the timed run: see performance.md).
      const handle = trellisSaver(saverKind, ctx.tmpDir);
      const saver = handle.saver as CheckpointSaver;
      const graph = builder.compile({ checkpointer: saver });
      let trials = 0;
      return {
        async trial() {
          const threadId = `chain-${++trials}`;
          return {
            run: () => invokeChain(() => graph.invoke({ k: 0 }, { threadId, recursionLimit: n + 10 }), invokes),
            storedBytes: () => handle.bytes([threadId]),
            dispose: () => saver.deleteThread(threadId),
          };
        },
      };
    }
    return {
      async trial() {
        const handle = trellisSaver(saverKind, ctx.tmpDir);
        const graph = builder.compile(handle.saver ? { checkpointer: handle.saver } : {});
        return {
          run: () => invokeChain(() => graph.invoke({ k: 0 }, { threadId: "chain", recursionLimit: n + 10 }), invokes),
          storedBytes: () => handle.bytes(["chain"]),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  if (runtime === "langgraph" || runtime === "compat") {
    const { Annotation, END: LG_END, START: LG_START, StateGraph: LgStateGraph } = langGraphApi(runtime);
    const State = Annotation.Root({ k: Annotation<number> });
    // LangGraph's builder types track node names as literals; a loop-built graph erases them.
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const builder: any = new LgStateGraph(State);
    for (const name of names) builder.addNode(name, (s: { k: number }) => ({ k: s.k + 1 }));
    builder.addEdge(LG_START, names[0]);
    for (let i = 1; i < n; i++) builder.addEdge(names[i - 1], names[i]);
    builder.addEdge(names[n - 1], LG_END);
    if (saverKind === "memory") {
      // As for Trellis: one graph and saver per worker, a new thread per trial, deleted after it.
      const current = ["chain-0"];
      const handle = await langGraphApiSaver(runtime, saverKind, ctx.tmpDir, current);
      const saver = handle.saver as unknown as { deleteThread(threadId: string): Promise<void> };
      const graph = builder.compile({ checkpointer: handle.saver });
      let trials = 0;
      return {
        async trial() {
          const threadId = `chain-${++trials}`;
          current[0] = threadId;
          const config = { configurable: { thread_id: threadId }, recursionLimit: n + 10 };
          return {
            run: () => invokeChain(() => graph.invoke({ k: 0 }, config), invokes),
            storedBytes: () => handle.bytes(),
            dispose: () => saver.deleteThread(threadId),
          };
        },
      };
    }
    return {
      async trial() {
        const handle = await langGraphApiSaver(runtime, saverKind, ctx.tmpDir, ["chain"]);
        const graph = builder.compile(handle.saver ? { checkpointer: handle.saver } : {});
        const config = { configurable: { thread_id: "chain" }, recursionLimit: n + 10 };
        return {
          run: () => invokeChain(() => graph.invoke({ k: 0 }, config), invokes),
          storedBytes: () => handle.bytes(),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  const steps = names.map(() => async (s: { k: number }) => ({ k: s.k + 1 }));
  return {
    async trial() {
      const store = floorStore(saverKind, ctx.tmpDir);
      return {
        async run() {
          let state = { k: 0 };
          for (let i = 0; i < invokes; i++) {
            state = { k: 0 };
            store.save("chain", state);
            for (const step of steps) {
              const update = await step(state);
              state = { ...state, ...update };
              store.save("chain", update);
            }
          }
          return state;
        },
        storedBytes: () => store.bytes(),
        dispose: () => store.dispose(),
      };
    },
  };
}

/** Invokes the chain `invokes` times (on one thread), resolving to the last final state. */
async function invokeChain(invoke: () => Promise<unknown>, invokes: number): Promise<unknown> {
  let out: unknown;
  for (let i = 0; i < invokes; i++) out = await invoke();
  return out;
}
