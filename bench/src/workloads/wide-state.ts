import { Annotation, END as LG_END, START as LG_START, StateGraph as LgStateGraph } from "@langchain/langgraph";
import { type AnyChannel, channel, END, START, StateGraph } from "@trellis/core";
import { floorStore } from "../floor-store.js";
import { langGraphSaver, trellisSaver } from "../savers.js";
import { type Impl, type MakeContext, type Runtime, type SaverKind, saverLabel, type Workload } from "../workload.js";

/**
 * (d) A wide state: 100 keys of 1 KB each, and a node that loops 20 times, rewriting 3 keys per step.
 * With a saver, this shows whether a checkpoint stores the whole state or only what changed.
 */
export function wideStateWorkload(saver: SaverKind): Workload {
  return {
    id: `d-wide-state/${saver}`,
    title: `(d) 100 keys × 1 KB, 20 steps, ${saverLabel(saver)}`,
    group: "d",
    saver,
    runs: { full: 20, quick: 7 },
    warmup: { full: 3, quick: 2 },
    units: { count: 20, name: "step" },
    make: (runtime, ctx) => makeWideState(runtime, saver, ctx),
    digest: (state) => state,
  };
}

const WRITES_PER_STEP = 3;

function sizes(tiny: boolean) {
  return tiny ? { keys: 10, steps: 4, bytes: 16 } : { keys: 100, steps: 20, bytes: 1024 };
}

/** The value step `step` writes to key `key`: `bytes` characters. */
function keyValue(key: number, step: number, bytes: number): string {
  const head = `k${key}s${step}:`;
  return head + "x".repeat(bytes - head.length);
}

/** Which keys step `step` rewrites. */
function keysOf(step: number, keys: number): number[] {
  return Array.from({ length: WRITES_PER_STEP }, (_, j) => (step * WRITES_PER_STEP + j) % keys);
}

function initialInput(keys: number, bytes: number): Record<string, unknown> {
  const input: Record<string, unknown> = { step: 0 };
  for (let i = 0; i < keys; i++) input[`key${i}`] = keyValue(i, 0, bytes);
  return input;
}

function stepUpdate(state: Record<string, unknown>, keys: number, bytes: number): Record<string, unknown> {
  const step = state.step as number;
  const update: Record<string, unknown> = { step: step + 1 };
  for (const k of keysOf(step, keys)) update[`key${k}`] = keyValue(k, step + 1, bytes);
  return update;
}

async function makeWideState(runtime: Runtime, saverKind: SaverKind, ctx: MakeContext): Promise<Impl> {
  const { keys, steps, bytes } = sizes(ctx.tiny);
  const input = initialInput(keys, bytes);
  const recursionLimit = steps + 10;
  if (runtime === "trellis") {
    const schema: Record<string, AnyChannel> = { step: channel.value(0) };
    for (let i = 0; i < keys; i++) schema[`key${i}`] = channel.value("");
    const builder = new StateGraph(schema)
      .addNode("update", (s) => stepUpdate(s, keys, bytes))
      .addEdge(START, "update")
      .addConditionalEdges("update", (s) => ((s.step as number) < steps ? "update" : END));
    return {
      async trial() {
        const handle = trellisSaver(saverKind, ctx.tmpDir);
        const graph = builder.compile(handle.saver ? { checkpointer: handle.saver } : {});
        return {
          run: () => graph.invoke(input, { threadId: "wide", recursionLimit }),
          storedBytes: () => handle.bytes(["wide"]),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  if (runtime === "langgraph") {
    const spec: Record<string, unknown> = { step: Annotation<number> };
    for (let i = 0; i < keys; i++) spec[`key${i}`] = Annotation<string>;
    const State = Annotation.Root(spec as { step: typeof Annotation<number> });
    // A key set built in a loop has no literal type; LangGraph's builder needs one.
    // biome-ignore lint/suspicious/noExplicitAny: see above.
    const builder: any = new LgStateGraph(State);
    builder.addNode("update", (s: Record<string, unknown>) => stepUpdate(s, keys, bytes));
    builder.addEdge(LG_START, "update");
    builder.addConditionalEdges("update", (s: Record<string, unknown>) =>
      (s.step as number) < steps ? "update" : LG_END,
    );
    return {
      async trial() {
        const handle = await langGraphSaver(saverKind, ctx.tmpDir);
        const graph = builder.compile(handle.saver ? { checkpointer: handle.saver } : {});
        const config = { configurable: { thread_id: "wide" }, recursionLimit };
        return {
          run: () => graph.invoke(input, config),
          storedBytes: () => handle.bytes(),
          dispose: () => handle.dispose(),
        };
      },
    };
  }
  const node = async (s: Record<string, unknown>) => stepUpdate(s, keys, bytes);
  return {
    async trial() {
      const store = floorStore(saverKind, ctx.tmpDir);
      return {
        async run() {
          let state: Record<string, unknown> = { ...input };
          store.save("wide", state);
          while ((state.step as number) < steps) {
            const update = await node(state);
            state = { ...state, ...update };
            store.save("wide", update);
          }
          return state;
        },
        storedBytes: () => store.bytes(),
        dispose: () => store.dispose(),
      };
    },
  };
}
