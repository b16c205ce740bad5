import { AsyncLocalStorage } from "node:async_hooks";
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
  const configurable: Record<string, unknown> = { ...config.configurable };
  if (config.threadId !== undefined) configurable.thread_id = config.threadId;
  if (config.checkpointId !== undefined) configurable.checkpoint_id = config.checkpointId;
  return configurable;
}

/** The config a compat node receives. @internal */
export function nodeConfig(ctx: NodeContext, defaults: LangGraphRunnableConfig | undefined): LangGraphRunnableConfig {
  const configurable = { ...defaults?.configurable, ...configurableOf(ctx.config) };
  configurable.checkpoint_ns = ctx.namespace;
  const metadata: Record<string, unknown> = {
    ...defaults?.metadata,
    ...ctx.config.metadata,
    langgraph_step: ctx.superstep,
    langgraph_node: ctx.node,
    langgraph_triggers: [ctx.node],
    langgraph_path: ["__pregel_pull", ctx.node],
    langgraph_checkpoint_ns: ctx.namespace ? `${ctx.namespace}|${ctx.node}:${ctx.taskId}` : `${ctx.node}:${ctx.taskId}`,
    checkpoint_ns: ctx.namespace ? `${ctx.namespace}|${ctx.node}:${ctx.taskId}` : `${ctx.node}:${ctx.taskId}`,
  };
  if (ctx.config.threadId !== undefined) metadata.thread_id = ctx.config.threadId;
  const config: LangGraphRunnableConfig = {
    ...defaults,
    configurable,
    metadata,
    signal: ctx.signal,
    writer: (chunk) => ctx.emit(chunk),
    interrupt: (value) => ctx.interrupt(value),
    recursionLimit: ctx.config.recursionLimit ?? 25,
  };
  if (ctx.store !== undefined) config.store = asBaseStore(ctx.store);
  return config;
}

/** The config a compat router receives. @internal */
export function routerConfig(
  ctx: RouterContext,
  defaults: LangGraphRunnableConfig | undefined,
  store: Store | undefined,
): LangGraphRunnableConfig {
  const config: LangGraphRunnableConfig = {
    ...defaults,
    configurable: { ...defaults?.configurable, ...configurableOf(ctx.config) },
    signal: ctx.signal,
  };
  const s = ctx.config.store ?? store;
  if (s !== undefined) config.store = asBaseStore(s);
  return config;
}

const LC_CHILD_CONFIG = Symbol.for("lc:child_config");
const LC_CONTEXT_VARIABLES = Symbol.for("lc:context_variables");

/**
 * Runs `fn` with `config` as LangChain's current config, so `getConfig()` and child runnables see it.
 * It stores what LangChain's `runWithConfig` stores (the config under `extra`, the context variables
 * carried over) without building a LangSmith run tree and a callback manager per node, which made a
 * fan-out of 1,000 tasks several times slower. @internal
 */
export function runWithConfig<T>(config: LangGraphRunnableConfig, fn: () => T): T {
  const storage = AsyncLocalStorageProviderSingleton.getInstance();
  const previous = storage.getStore() as Record<symbol, unknown> | undefined;
  const store: Record<string | symbol, unknown> = { extra: { [LC_CHILD_CONFIG]: config } };
  if (previous?.[LC_CONTEXT_VARIABLES] !== undefined) store[LC_CONTEXT_VARIABLES] = previous[LC_CONTEXT_VARIABLES];
  return storage.run(store, fn);
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
