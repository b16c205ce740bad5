import { AsyncLocalStorage } from "node:async_hooks";
import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import { END, getNodeContext, START } from "@trellis/core";
import { Annotation } from "./annotation.js";
import { CompiledStateGraph } from "./compiled-state-graph.js";
import type { LangGraphRunnableConfig } from "./config.js";
import { fromStoredValue, toStoredValue } from "./message-convert.js";
import { StateGraph } from "./state-graph.js";

const RETURN = "__return__";
const SAVED = "__previous__";
const INPUT = "__input__";
const previous = new AsyncLocalStorage<{ value: unknown }>();

/** What `entrypoint.final` returns: the value the caller gets, and the one the next run's `getPreviousState()` reads. */
interface Final<V, S> {
  readonly __final__: true;
  value: V;
  save: S;
}

function isFinal(value: unknown): value is Final<unknown, unknown> {
  return typeof value === "object" && value !== null && (value as { __final__?: unknown }).__final__ === true;
}

/**
 * A unit of work of the functional API: called inside an `entrypoint` (or a node), its result is
 * recorded in the thread, so when the run resumes after an interrupt the task returns its recorded
 * result instead of running again. Calls are numbered in call order (`name`, `name#2`…).
 *
 * @example
 * const draft = task("draft", async (topic: string) => `A note on ${topic}`);
 * const workflow = entrypoint({ name: "notes", checkpointer }, async (topic: string) => draft(topic));
 */
export function task<Args extends unknown[], R>(
  nameOrOptions: string | { name: string; retry?: unknown },
  fn: (...args: Args) => R | Promise<R>,
): (...args: Args) => Promise<R> {
  const name = typeof nameOrOptions === "string" ? nameOrOptions : nameOrOptions.name;
  return async (...args: Args) => {
    const ctx = getNodeContext();
    const stored = await ctx.step(name, async () => toStoredValue(await fn(...args)));
    return fromStoredValue(stored) as R;
  };
}

/**
 * Options of {@link entrypoint}.
 *
 * @example
 * entrypoint({ name: "review", checkpointer: new MemorySaver(), store: new InMemoryStore() }, fn);
 */
export interface EntrypointOptions {
  name: string;
  checkpointer?: CheckpointSaver;
  store?: Store;
}

/**
 * The functional API's workflow: `fn(input, config)` runs as one node of a graph with a checkpointer,
 * so it may call tasks, `interrupt()` and `getPreviousState()`; `invoke` returns what `fn` returns.
 *
 * @example
 * const workflow = entrypoint({ name: "greet", checkpointer: new MemorySaver() }, async (name: string) => {
 *   const ok = interrupt<string, boolean>(`Greet ${name}?`);
 *   return ok ? `Hello, ${name}` : "skipped";
 * });
 * await workflow.invoke("Ada", { configurable: { thread_id: "t1" } });
 */
function entrypointOf<I, R>(
  options: EntrypointOptions | string,
  fn: (input: I, config: LangGraphRunnableConfig) => R | Promise<R>,
): CompiledStateGraph {
  const opts = typeof options === "string" ? { name: options } : options;
  const State = Annotation.Root({
    [INPUT]: Annotation<unknown>(),
    [RETURN]: Annotation<unknown>(),
    [SAVED]: Annotation<unknown>(),
  });
  const graph = new StateGraph(State)
    .addNode(opts.name, async (state: Record<string, unknown>, config: LangGraphRunnableConfig) => {
      const result = await previous.run({ value: state[SAVED] }, () => fn(state[INPUT] as I, config));
      const out = await result;
      return isFinal(out) ? { [RETURN]: out.value, [SAVED]: out.save } : { [RETURN]: out, [SAVED]: out };
    })
    .addEdge(START, opts.name)
    .addEdge(opts.name, END)
    .compile({
      name: opts.name,
      ...(opts.checkpointer !== undefined ? { checkpointer: opts.checkpointer } : {}),
      ...(opts.store !== undefined ? { store: opts.store } : {}),
    });
  return new CompiledStateGraph(graph.trellisGraph, compatSchemaOf(graph), {
    store: opts.store,
    io: {
      input: (value) => ({ [INPUT]: toStoredValue(value), [RETURN]: null }),
      output: (state) => (RETURN in state ? state[RETURN] : state),
    },
  });
}

function compatSchemaOf(graph: CompiledStateGraph): ConstructorParameters<typeof CompiledStateGraph>[1] {
  return (graph as unknown as { schemaOf(): ConstructorParameters<typeof CompiledStateGraph>[1] }).schemaOf();
}

/**
 * Builds a workflow of the functional API; `entrypoint.final({ value, save })` returns `value` to the
 * caller and keeps `save` for the next run's {@link getPreviousState}.
 *
 * @example
 * const counter = entrypoint({ name: "count", checkpointer }, async (n: number) => {
 *   const total = (getPreviousState<number>() ?? 0) + n;
 *   return entrypoint.final({ value: total, save: total });
 * });
 */
export const entrypoint: typeof entrypointOf & {
  final<V, S>(result: { value?: V; save?: S }): Final<V, S>;
} = Object.assign(entrypointOf, {
  final<V, S>(result: { value?: V; save?: S }): Final<V, S> {
    return { __final__: true, value: result.value as V, save: result.save as S };
  },
});

/**
 * The value the previous run of this thread's entrypoint returned (or saved with `entrypoint.final`);
 * undefined on the first run.
 *
 * @example
 * const before = getPreviousState<{ count: number }>();
 */
export function getPreviousState<T>(): T {
  return fromStoredValue(previous.getStore()?.value) as T;
}
