import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import {
  Command,
  type CompiledGraph,
  type GraphDrawing,
  type RunConfig,
  type StateSchema,
  type Xray,
} from "@trellis/core";
import type { StateDefinition, StateType, UpdateType } from "./annotation.js";
import { currentNode, type LangGraphRunnableConfig, withoutTaskInput } from "./config.js";
import { storedSend, toNodeReturn } from "./node-adapter.js";
import {
  checkpointConfig,
  type LangGraphInterrupt,
  type StateSnapshot,
  toInterrupts,
  toLangGraphSnapshot,
} from "./snapshot-shapes.js";
import { type CompatSchema, toGraphState, toStoredUpdate } from "./state-schema.js";
import { type StreamEvent, streamEventsV2 } from "./stream-events-v2.js";
import { type LangGraphStreamOptions, streamChunks } from "./stream-shapes.js";

/** The key under which a compat graph hands its Trellis graph to a server. */
const TRELLIS_GRAPH = Symbol.for("trellis.compiledGraph");

/**
 * How a graph whose input and output are not state objects (an `entrypoint`) maps them. @internal
 */
export interface GraphIo {
  input(value: unknown): Record<string, unknown>;
  output(state: Record<string, unknown>): unknown;
}

/**
 * The drawing `getGraph()` returns: nodes and edges, and `drawMermaid()` as LangGraph's `Graph` has.
 *
 * @example
 * console.log(graph.getGraph().drawMermaid());
 */
export type DrawableGraph = GraphDrawing & { drawMermaid(): string };

/**
 * A compiled LangGraph graph running on Trellis: `invoke`, `stream`, `streamEvents`, `batch`,
 * `getState`, `getStateHistory`, `updateState`, `withConfig`, `getGraph`, with LangGraph's config
 * (`{ configurable: { thread_id } }`) and shapes. A server reads the Trellis graph inside it.
 *
 * @example
 * const config = { configurable: { thread_id: "t1" } };
 * const result = await graph.invoke({ messages: [new HumanMessage("hi")] }, config);
 * for await (const chunk of await graph.stream(null, { ...config, streamMode: "updates" })) console.log(chunk);
 */
export class CompiledStateGraph<SD extends StateDefinition = StateDefinition, S = StateType<SD>, U = UpdateType<SD>> {
  #core: CompiledGraph<StateSchema>;
  readonly #schema: CompatSchema;
  readonly #defaults: LangGraphRunnableConfig;
  #name: string | undefined;
  #store: Store | undefined;
  readonly #io: GraphIo | undefined;
  description: string | undefined;
  declare readonly _types: { state: S; update: U };

  /** Made by `StateGraph.compile()` and `entrypoint()`. @internal */
  constructor(
    core: CompiledGraph<StateSchema>,
    schema: CompatSchema,
    meta: { description?: string; store?: Store | undefined; io?: GraphIo | undefined } = {},
    defaults: LangGraphRunnableConfig = {},
  ) {
    this.#store = meta.store;
    this.#io = meta.io;
    this.#core = core;
    this.#schema = schema;
    this.#defaults = defaults;
    this.description = meta.description;
  }

  /** The compat schema (for the functional API). @internal */
  schemaOf(): CompatSchema {
    return this.#schema;
  }

  /** The Trellis graph this one runs on (what `trellis serve` serves). */
  get trellisGraph(): CompiledGraph<StateSchema> {
    return this.#core;
  }

  /** @internal */
  get [TRELLIS_GRAPH](): CompiledGraph<StateSchema> {
    return this.#core;
  }

  get name(): string {
    return this.#name ?? this.#core.name;
  }

  set name(name: string) {
    this.#name = name;
  }

  get checkpointer(): CheckpointSaver | undefined {
    return this.#core.checkpointer;
  }

  /** Swaps the checkpointer, as LangGraph's assignable `graph.checkpointer`. */
  set checkpointer(saver: CheckpointSaver | undefined) {
    this.#core = this.#core.withCheckpointer(saver);
  }

  get store(): Store | undefined {
    return this.#store;
  }

  set store(store: Store | undefined) {
    this.#store = store;
    this.#core = this.#core.withStore(store);
  }

  /** A graph that merges `config` into every call's config. */
  withConfig(config: LangGraphRunnableConfig): CompiledStateGraph<SD, S, U> {
    const merged = mergeConfigs(this.#defaults, config);
    const graph = new CompiledStateGraph<SD, S, U>(
      this.#core,
      this.#schema,
      {
        ...(this.description === undefined ? {} : { description: this.description }),
        store: this.#store,
        io: this.#io,
      },
      merged,
    );
    if (this.#name !== undefined) graph.name = this.#name;
    return graph;
  }

  /** Runs the graph to its end or its next pause; the state, with `__interrupt__` when it paused. */
  async invoke(
    input: UpdateType<SD> | Command | null | Record<string, unknown>,
    config?: LangGraphRunnableConfig,
  ): Promise<S & { __interrupt__?: LangGraphInterrupt[] }> {
    const runConfig = this.#runConfig(config);
    const stored = this.#input(input) as never;
    if (runConfig.configurable?.thread_id === undefined && insideNodeOf(undefined)) {
      // called by a node: a nested run, as a subgraph of the node's run
      const result = (await this.#core.invoke(stored, runConfig)) as Record<string, unknown>;
      const pending = result.__interrupt__ as Parameters<typeof toInterrupts>[0] | undefined;
      return this.#output(result, pending && pending.length > 0 ? pending : undefined);
    }
    const result = await this.#core.run(stored, runConfig);
    if (result.status === "error") throw result.error;
    // as LangGraph: a run that paused (on interrupt() or a breakpoint) lists its pending interrupts
    return this.#output(result.values, result.status === "interrupted" ? result.interrupts : undefined);
  }

  #output(values: Record<string, unknown>, pending: Parameters<typeof toInterrupts>[0] | undefined) {
    type Out = S & { __interrupt__?: LangGraphInterrupt[] };
    const state = toGraphState(this.#schema, values, this.#schema.outputKeys);
    if (this.#io) {
      const value = this.#io.output(state);
      return (pending ? { __interrupt__: toInterrupts(pending) } : value) as Out;
    }
    if (pending) state.__interrupt__ = toInterrupts(pending);
    return state as Out;
  }

  /** Runs several inputs (each with its config, or one config for all) and returns their results in order. */
  batch(
    inputs: Array<UpdateType<SD> | Command | null | Record<string, unknown>>,
    configs?: LangGraphRunnableConfig | LangGraphRunnableConfig[],
  ): Promise<Array<S & { __interrupt__?: LangGraphInterrupt[] }>> {
    return Promise.all(inputs.map((input, i) => this.invoke(input, Array.isArray(configs) ? configs[i] : configs)));
  }

  /**
   * Runs the graph and yields its chunks in LangGraph's shapes for `streamMode` (`values`, `updates`,
   * `messages`, `custom`, `debug`, or a list), with `[namespace, …]` tuples when `subgraphs` is set.
   */
  async stream(
    input: UpdateType<SD> | Command | null | Record<string, unknown>,
    config?: LangGraphRunnableConfig & LangGraphStreamOptions,
  ): Promise<AsyncIterableIterator<unknown>> {
    const { streamMode, subgraphs, ...rest } = config ?? {};
    const options: LangGraphStreamOptions = {};
    if (streamMode !== undefined) options.streamMode = streamMode;
    if (subgraphs !== undefined) options.subgraphs = subgraphs;
    return streamChunks(this.#core, this.#schema, this.#input(input), this.#runConfig(rest), options, this.#io);
  }

  /** LangChain's `streamEvents` (v2): chain start/end for the graph and its nodes, chat model tokens. */
  streamEvents(
    input: UpdateType<SD> | Command | null | Record<string, unknown>,
    config: LangGraphRunnableConfig & { version?: "v1" | "v2" },
  ): AsyncIterableIterator<StreamEvent> {
    const { version: _version, ...rest } = config ?? {};
    return streamEventsV2(this.#core, this.#schema, this.#input(input), this.#runConfig(rest), this.name);
  }

  /** The thread's state at its latest checkpoint (or `checkpoint_id`), in LangGraph's shape. */
  async getState(config: LangGraphRunnableConfig, options: { subgraphs?: boolean } = {}): Promise<StateSnapshot> {
    const snapshot = await this.#core.getState(this.#runConfig(config), options);
    return this.#snapshot(toLangGraphSnapshot(this.#schema, snapshot));
  }

  /** The thread's checkpoints, newest first, in LangGraph's shape. */
  async *getStateHistory(
    config: LangGraphRunnableConfig,
    options: { limit?: number; before?: LangGraphRunnableConfig; filter?: Record<string, unknown> } = {},
  ): AsyncIterableIterator<StateSnapshot> {
    const coreOptions: { limit?: number; before?: string; filter?: Record<string, unknown> } = {};
    if (options.limit !== undefined) coreOptions.limit = options.limit;
    if (options.filter !== undefined) coreOptions.filter = options.filter;
    const before = options.before?.configurable?.checkpoint_id;
    if (typeof before === "string") coreOptions.before = before;
    for await (const snapshot of this.#core.getStateHistory(this.#runConfig(config), coreOptions)) {
      yield this.#snapshot(toLangGraphSnapshot(this.#schema, snapshot));
    }
  }

  /** Changes the thread's state as if `asNode` had returned `values`; returns the new checkpoint's config. */
  async updateState(
    config: LangGraphRunnableConfig,
    values: UpdateType<SD> | Record<string, unknown> | Command | null,
    asNode?: string,
  ): Promise<LangGraphRunnableConfig> {
    const update = values instanceof Command ? toNodeReturn(this.#schema, values) : toNodeReturn(this.#schema, values);
    const stored = update instanceof Command ? (update.update ?? {}) : (update ?? {});
    const { threadId, checkpointId } = await this.#core.updateState(
      this.#runConfig(config),
      stored as Record<string, unknown>,
      asNode,
    );
    return checkpointConfig(threadId, checkpointId);
  }

  /** The graph's nodes and edges; `drawMermaid()` draws it. */
  getGraph(options: { xray?: Xray } = {}): DrawableGraph {
    const core = this.#core;
    return Object.assign({}, core.getGraph(options), { drawMermaid: () => core.drawMermaid(options) });
  }

  /** The same as {@link getGraph}, as LangGraph's async form. */
  async getGraphAsync(options: { xray?: Xray } = {}): Promise<DrawableGraph> {
    return this.getGraph(options);
  }

  #snapshot(snapshot: StateSnapshot): StateSnapshot {
    return this.#io
      ? Object.assign({}, snapshot, { values: this.#io.output(snapshot.values) as Record<string, unknown> })
      : snapshot;
  }

  #input(input: unknown): unknown {
    if (this.#io && !(input instanceof Command) && input !== null) return this.#io.input(input);
    if (input === null || input === undefined) return null;
    if (input instanceof Command) {
      const init: ConstructorParameters<typeof Command>[0] = {
        goto: input.goto.map((g) => (typeof g === "string" ? g : storedSend(g))),
      };
      if (input.hasResume) init.resume = input.resume;
      if (input.update !== undefined) init.update = toStoredUpdate(this.#schema, input.update);
      return new Command(init);
    }
    return toStoredUpdate(this.#schema, input) ?? {};
  }

  #runConfig(config: LangGraphRunnableConfig | undefined): RunConfig {
    const merged = mergeConfigs(this.#defaults, config ?? {}) as Record<string, unknown>;
    const given = merged.configurable as Record<string, unknown> | undefined;
    // A node that invokes a graph with its own config runs it as its subgraph, as LangGraph does.
    const nested = insideNodeOf(given?.thread_id);
    // copied key by key, not deleted from a copy: `delete` leaves the run's config a slow dictionary
    const out: RunConfig & Record<string, unknown> = {};
    for (const key of Object.keys(merged)) {
      if (NOT_RUN_CONFIG.has(key) || (nested && key === "signal")) continue;
      if (key !== "runId" || merged.runId !== undefined) out[key] = merged[key];
    }
    // the task input a node's config carries is the node's, not the run's
    if (nested) {
      const { thread_id: _t, checkpoint_id: _c, checkpoint_ns: _n, ...configurable } = given ?? {};
      out.configurable = withoutTaskInput(configurable);
    } else if (given) out.configurable = Object.assign({}, withoutTaskInput(given));
    return out;
  }
}

/** Keys of a LangGraph config that a Trellis run config does not take (`configurable` is copied apart). */
const NOT_RUN_CONFIG = new Set(["writer", "store", "interrupt", "tags", "runName", "run_id", "configurable"]);

/**
 * Whether this code runs inside a compat node of the run on `threadId` (or of any run, when undefined).
 * Read off LangChain's current store, which every compat node sets: asking the core (which throws
 * outside a node) cost an error with its stack on every top-level `invoke`.
 */
function insideNodeOf(threadId: unknown): boolean {
  const current = currentNode();
  if (!current.inside) return false;
  return threadId === undefined || threadId === current.threadId;
}

/** Merges two LangGraph configs: `configurable` and `metadata` key by key, callbacks appended. @internal */
export function mergeConfigs(a: LangGraphRunnableConfig, b: LangGraphRunnableConfig): LangGraphRunnableConfig {
  const out: LangGraphRunnableConfig = Object.assign({}, a, b);
  if (a.configurable || b.configurable) out.configurable = Object.assign({}, a.configurable, b.configurable);
  if (a.metadata || b.metadata) out.metadata = Object.assign({}, a.metadata, b.metadata);
  if (Array.isArray(a.callbacks) && Array.isArray(b.callbacks)) out.callbacks = [...a.callbacks, ...b.callbacks];
  return out;
}
