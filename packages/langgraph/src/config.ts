import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { RunnableConfig } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { NodeContext, RouterContext, Store } from "@trellis/core";
import { asBaseStore, type BaseStore } from "./store.js";

/**
 * What a LangGraph node or router receives as its second argument: LangChain's `RunnableConfig` plus
 * the store, the writer of the `custom` stream mode and the run's signal.
 *
 * @example
 * const node = async (state: typeof State.State, config: LangGraphRunnableConfig) => {
 *   const userId = config.configurable?.user_id as string;
 *   await config.store?.put(["memories", userId], "last", { text: state.topic });
 *   config.writer?.({ progress: 1 });
 *   return {};
 * };
 */
export interface LangGraphRunnableConfig<ContextType extends Record<string, unknown> = Record<string, unknown>>
  extends RunnableConfig {
  store?: BaseStore;
  writer?: (chunk: unknown) => void;
  signal?: AbortSignal;
  context?: ContextType;
  interrupt?: (value: unknown) => unknown;
}

let initialized = false;

/** Gives LangChain's config propagation an AsyncLocalStorage, as LangGraph does (once per process). @internal */
export function ensureConfigStorage(): void {
  if (initialized) return;
  initialized = true;
  const current = AsyncLocalStorageProviderSingleton.getInstance() as { constructor?: { name?: string } };
  if (current?.constructor?.name === "MockAsyncLocalStorage") {
    AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
  }
}

function configurableOf(config: NodeContext["config"]): Record<string, unknown> {
  const configurable: Record<string, unknown> = Object.assign({}, config.configurable);
  if (config.threadId !== undefined) configurable.thread_id = config.threadId;
  if (config.checkpointId !== undefined) configurable.checkpoint_id = config.checkpointId;
  return configurable;
}

/** What every task of one run (and one set of defaults) shares in its config. */
interface RunConfigBase {
  runConfig: NodeContext["config"];
  defaults: LangGraphRunnableConfig | undefined;
  configurable: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

// the last run's shared parts: the tasks of a superstep (a fan-out's thousand) share one run config
let lastBase: RunConfigBase | undefined;

function runBase(ctx: NodeContext, defaults: LangGraphRunnableConfig | undefined): RunConfigBase {
  if (lastBase !== undefined && lastBase.runConfig === ctx.config && lastBase.defaults === defaults) return lastBase;
  const metadata: Record<string, unknown> = Object.assign({}, defaults?.metadata, ctx.config.metadata);
  if (ctx.config.threadId !== undefined) metadata.thread_id = ctx.config.threadId;
  lastBase = {
    runConfig: ctx.config,
    defaults,
    configurable: Object.assign({}, defaults?.configurable, configurableOf(ctx.config)),
    metadata,
  };
  return lastBase;
}

/**
 * Where a task's config carries what `getCurrentTaskInput()` returns, under LangGraph's own key: in
 * `configurable`, which LangChain copies into the config of every runnable the task calls (a tool
 * under a `ToolNode`, a chat model), so they can read it too. A run's config leaves it out
 * ({@link withoutTaskInput}).
 */
const TASK_SCRATCHPAD = "__pregel_scratchpad";

/** The config's `configurable` without the task input it carries, for a run a node starts. @internal */
export function withoutTaskInput(configurable: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(configurable, TASK_SCRATCHPAD)) return configurable;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(configurable)) if (key !== TASK_SCRATCHPAD) out[key] = configurable[key];
  return out;
}

/**
 * The config a compat node receives: a fresh object per task (a node may change its own), its run's
 * shared parts built once per run; `input` is what the node was called with. @internal
 */
export function nodeConfig(
  ctx: NodeContext,
  defaults: LangGraphRunnableConfig | undefined,
  input: unknown,
): LangGraphRunnableConfig {
  const base = runBase(ctx, defaults);
  const configurable: Record<string, unknown> = Object.assign({}, base.configurable);
  configurable.checkpoint_ns = ctx.namespace;
  configurable[TASK_SCRATCHPAD] = { currentTaskInput: input };
  const taskNs = ctx.namespace ? `${ctx.namespace}|${ctx.node}:${ctx.taskId}` : `${ctx.node}:${ctx.taskId}`;
  const metadata: Record<string, unknown> = Object.assign({}, base.metadata);
  metadata.langgraph_step = ctx.superstep;
  metadata.langgraph_node = ctx.node;
  metadata.langgraph_triggers = [ctx.node];
  metadata.langgraph_path = ["__pregel_pull", ctx.node];
  metadata.langgraph_checkpoint_ns = taskNs;
  metadata.checkpoint_ns = taskNs;
  const own: LangGraphRunnableConfig = {
    configurable,
    metadata,
    signal: ctx.signal,
    writer: (chunk) => ctx.emit(chunk),
    interrupt: (value) => ctx.interrupt(value),
    recursionLimit: ctx.config.recursionLimit ?? 25,
  };
  const config = defaults === undefined ? own : Object.assign({}, defaults, own);
  if (ctx.store !== undefined) config.store = asBaseStore(ctx.store);
  return config;
}

/** The config a compat router receives; `input` is the state it is called with. @internal */
export function routerConfig(
  ctx: RouterContext,
  defaults: LangGraphRunnableConfig | undefined,
  store: Store | undefined,
  input: unknown,
): LangGraphRunnableConfig {
  const configurable: Record<string, unknown> = Object.assign({}, defaults?.configurable, configurableOf(ctx.config));
  configurable[TASK_SCRATCHPAD] = { currentTaskInput: input };
  const own: LangGraphRunnableConfig = { configurable, signal: ctx.signal };
  const config = defaults === undefined ? own : Object.assign({}, defaults, own);
  const s = ctx.config.store ?? store;
  if (s !== undefined) config.store = asBaseStore(s);
  return config;
}

const LC_CHILD_CONFIG: unique symbol = Symbol.for("lc:child_config") as never;
const LC_CONTEXT_VARIABLES: unique symbol = Symbol.for("lc:context_variables") as never;

/** LangChain's context variables of the code calling, carried into a task's store. */
function contextVariables(): unknown {
  const previous = AsyncLocalStorageProviderSingleton.getInstance().getStore() as Record<symbol, unknown> | undefined;
  return previous?.[LC_CONTEXT_VARIABLES];
}

/**
 * Runs `fn` with `config` as LangChain's current config, so `getConfig()` and child runnables see it.
 * It stores what LangChain's `runWithConfig` stores (the config under `extra`, the context variables
 * carried over) without building a LangSmith run tree and a callback manager per node, which made a
 * fan-out of 1,000 tasks several times slower. @internal
 */
export function runWithConfig<T>(config: LangGraphRunnableConfig, fn: () => T): T {
  const store: Record<string | symbol, unknown> = { extra: { [LC_CHILD_CONFIG]: config } };
  const variables = contextVariables();
  if (variables !== undefined) store[LC_CONTEXT_VARIABLES] = variables;
  return AsyncLocalStorageProviderSingleton.getInstance().run(store, fn);
}

/**
 * What a compat node's task sets as LangChain's current store: one object, read as LangChain reads its
 * own (`store.extra[lc:child_config]`, the context variables), whose config is built the first time
 * something reads it. A node that takes no config argument and calls no runnable costs no config; a
 * fan-out of 1,000 such tasks kept 1,000 configs alive through its step. @internal
 */
export class TaskConfigStore {
  /** LangChain reads the config at `store.extra[lc:child_config]`: the store is its own `extra`. */
  readonly extra: TaskConfigStore = this;
  readonly [LC_CONTEXT_VARIABLES]: unknown;
  #config: LangGraphRunnableConfig | undefined;
  readonly #ctx: NodeContext;
  readonly #defaults: LangGraphRunnableConfig | undefined;
  readonly #input: unknown;

  /** `input`: what the node is called with; `config`: the task's config when it is built already. */
  constructor(
    ctx: NodeContext,
    defaults: LangGraphRunnableConfig | undefined,
    input: unknown,
    config?: LangGraphRunnableConfig,
  ) {
    this.#ctx = ctx;
    this.#defaults = defaults;
    this.#input = input;
    this.#config = config;
    this[LC_CONTEXT_VARIABLES] = contextVariables();
  }

  /** The task's config, as {@link nodeConfig} builds it with the run's callbacks; the same object on every read. */
  get config(): LangGraphRunnableConfig {
    if (this.#config === undefined) {
      this.#config = withCallbacks(nodeConfig(this.#ctx, this.#defaults, this.#input), this.#ctx);
    }
    return this.#config;
  }

  get [LC_CHILD_CONFIG](): LangGraphRunnableConfig {
    return this.config;
  }

  /** `configurable.thread_id` of the task's config, read without building it. */
  get threadId(): unknown {
    if (this.#config !== undefined) return this.#config.configurable?.thread_id;
    return runBase(this.#ctx, this.#defaults).configurable.thread_id;
  }

  /** Runs `fn` with this store as LangChain's current one. */
  run<T>(fn: () => T): T {
    return AsyncLocalStorageProviderSingleton.getInstance().run(this, fn);
  }
}

/**
 * Sets a task config's `callbacks`: the run's (`config.callbacks`), after `handler` (the `messages`
 * stream's) when there is one. @internal
 */
export function withCallbacks(
  config: LangGraphRunnableConfig,
  ctx: NodeContext,
  handler?: BaseCallbackHandler,
): LangGraphRunnableConfig {
  const userCallbacks = (ctx.config as { callbacks?: unknown }).callbacks;
  if (Array.isArray(userCallbacks)) config.callbacks = handler ? [handler, ...userCallbacks] : [...userCallbacks];
  else if (handler) config.callbacks = [handler];
  return config;
}

/**
 * Whether code runs inside a compat node, and the `configurable.thread_id` of that node's config: read
 * off LangChain's current config, without building a task's config that nothing read yet. @internal
 */
export function currentNode(): { inside: boolean; threadId: unknown } {
  const store = AsyncLocalStorageProviderSingleton.getInstance().getStore();
  if (store instanceof TaskConfigStore) return { inside: true, threadId: store.threadId };
  const current = getConfig();
  return { inside: current.metadata?.langgraph_node !== undefined, threadId: current.configurable?.thread_id };
}

/**
 * The config of the node (or task) running this code.
 *
 * @example
 * const userId = getConfig().configurable?.user_id;
 */
export function getConfig(): LangGraphRunnableConfig {
  return (AsyncLocalStorageProviderSingleton.getRunnableConfig() ?? {}) as LangGraphRunnableConfig;
}

/**
 * What the task running this code was called with: the state a node received (with LangChain message
 * classes, and only its input keys when the node declares an input schema), a `Send`'s packet, or the
 * state a router reads. Works in the node itself and in the runnables it calls with its config — a
 * tool run by a `ToolNode` reads the graph's state this way. Throws outside a running node.
 *
 * @example
 * const whoAmI = tool(() => `you are ${getCurrentTaskInput<typeof State.State>().userName}`, {
 *   name: "who_am_i",
 *   description: "Says who the user is.",
 *   schema: z.object({}),
 * });
 */
export function getCurrentTaskInput<T = unknown>(config?: LangGraphRunnableConfig): T {
  const scratchpad = (config ?? getConfig()).configurable?.[TASK_SCRATCHPAD] as
    | { currentTaskInput?: unknown }
    | undefined;
  if (scratchpad === undefined || typeof scratchpad !== "object" || !("currentTaskInput" in scratchpad)) {
    throw new Error(
      "getCurrentTaskInput() was called outside a running graph node. Call it in a node, a router, or a tool or runnable a node calls with its config.",
    );
  }
  return scratchpad.currentTaskInput as T;
}

/**
 * The long-term memory store of the node running this code; undefined when the graph has none.
 *
 * @example
 * const memories = await getStore()?.search(["memories", userId]);
 */
export function getStore(): BaseStore | undefined {
  return getConfig().store;
}

/**
 * The writer of the `custom` stream mode for the node running this code.
 *
 * @example
 * getWriter()?.({ progress: 0.5 });
 */
export function getWriter(): ((chunk: unknown) => void) | undefined {
  return getConfig().writer;
}
