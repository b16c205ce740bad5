import { isBaseMessage } from "@langchain/core/messages";
import { Command, isStreaming, type NodeContext, type RouterContext, Send, type Store } from "@trellis/core";
import {
  type LangGraphRunnableConfig,
  nodeConfig,
  routerConfig,
  runWithConfig,
  TaskConfigStore,
  withCallbacks,
} from "./config.js";
import { toStoredValue } from "./message-convert.js";
import { MessagesStreamHandler } from "./message-stream.js";
import { mayReadConfigArgument } from "./node-arity.js";
import { type CompatSchema, toGraphState, toStoredUpdate } from "./state-schema.js";

/**
 * What may stand as a node or a router: a function of `(state, config)`, or a Runnable (anything with
 * `invoke(state, config)`).
 *
 * @example
 * const node: NodeAction = async (state, config) => ({ count: 1 });
 */
export type NodeAction =
  | ((state: never, config: LangGraphRunnableConfig) => unknown)
  | { invoke: (state: never, config?: LangGraphRunnableConfig) => unknown };

function callable(action: NodeAction): (state: unknown, config: LangGraphRunnableConfig) => unknown {
  if (typeof action === "function") return action as (s: unknown, c: LangGraphRunnableConfig) => unknown;
  return (state, config) =>
    (action as { invoke: (s: unknown, c: LangGraphRunnableConfig) => unknown }).invoke(state, config);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * Stored form of an update for another graph (`Command.PARENT`), whose keys this graph does not know,
 * or of a `Send`'s argument: the same object when it holds no LangChain message.
 */
function storedLoose(update: unknown): unknown {
  if (update === null || typeof update !== "object" || Array.isArray(update)) return update;
  const source = update as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  // once per Send of a fan-out: `for…in` walks the own keys without making an array of them
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const value = source[key];
    const stored = toStoredValue(value);
    if (stored !== value && out === undefined) out = { ...source };
    if (out !== undefined) out[key] = stored;
  }
  return out ?? source;
}

/** A `Send`'s argument with its messages stored; the same Send when it holds none. @internal */
export function storedSend(send: Send): Send {
  const arg = storedLoose(send.arg);
  return arg === send.arg ? send : new Send(send.node, arg);
}

function storedGoto(goto: readonly unknown[]): Array<string | Send> {
  return goto.map((g) => (g instanceof Send ? storedSend(g) : (g as string)));
}

function storedCommand(schema: CompatSchema, command: Command): Command {
  const init: ConstructorParameters<typeof Command>[0] = { goto: storedGoto(command.goto) };
  if (command.hasResume) init.resume = command.resume;
  if (command.update !== undefined) {
    const update =
      command.graph === Command.PARENT ? storedLoose(command.update) : toStoredUpdate(schema, command.update);
    init.update = update as Record<string, unknown>;
  }
  if (command.graph !== undefined) init.graph = command.graph;
  return new Command(init) as Command;
}

/** A list a node returned (Commands and updates, as a tool node does): one Command. */
function mergeReturns(schema: CompatSchema, items: readonly unknown[]): Command {
  const update: Record<string, unknown> = {};
  const goto: Array<string | Send> = [];
  let graph: string | undefined;
  for (const item of items) {
    const stored = toNodeReturn(schema, item);
    const part = stored instanceof Command ? stored.update : stored;
    if (stored instanceof Command) {
      goto.push(...(stored.goto as Array<string | Send>));
      if (stored.graph !== undefined) graph = stored.graph;
    }
    for (const [key, value] of Object.entries((part ?? {}) as Record<string, unknown>)) {
      const previous = update[key];
      update[key] =
        schema.messageKeys.has(key) && previous !== undefined ? ([] as unknown[]).concat(previous, value) : value;
    }
  }
  return new Command({ update, goto, ...(graph !== undefined ? { graph } : {}) });
}

/** A node's return value as a Trellis node's: stored messages, undeclared keys dropped. @internal */
export function toNodeReturn(schema: CompatSchema, result: unknown): unknown {
  if (result === null || result === undefined) return undefined;
  if (result instanceof Command) return storedCommand(schema, result);
  if (Array.isArray(result)) return mergeReturns(schema, result);
  return toStoredUpdate(schema, result);
}

/**
 * Wraps a LangGraph node `(state, config)` as a Trellis node `(state, ctx)`: the state it reads has
 * LangChain messages, the config carries configurable/store/writer/signal, and LangChain's current
 * config is set so child runnables (chat models) report to the run's callbacks. What the node returns
 * is converted by `mapResult` (stored messages, undeclared keys dropped), which the runtime applies
 * when the node's promise resolves: one promise per task, not a second one for the conversion.
 * @internal
 */
export function adaptNode(
  schema: CompatSchema,
  action: NodeAction,
  options: { inputKeys?: readonly string[] | undefined; defaults: () => LangGraphRunnableConfig | undefined },
): { run: (input: unknown, ctx: NodeContext) => unknown; mapResult: (result: unknown) => unknown } {
  const call = callable(action);
  // a node that cannot read a second argument gets none, and its config only if it asks for it
  const takesConfig = typeof action !== "function" || mayReadConfigArgument(action);
  const run = (input: unknown, ctx: NodeContext): unknown => {
    const defaults = options.defaults();
    if (isStreaming("messages")) return runStreamingMessages(schema, call, { input, ctx, defaults }, options.inputKeys);
    const state = toGraphState(schema, input, options.inputKeys);
    const task = new TaskConfigStore(ctx, defaults, state);
    return takesConfig ? task.run(() => call(state, task.config)) : task.run(() => call(state, NO_CONFIG));
  };
  return { run, mapResult: (result) => toNodeReturn(schema, result) };
}

// what a node that declares no config parameter is called with (it cannot read it)
const NO_CONFIG = undefined as unknown as LangGraphRunnableConfig;

/**
 * A node's task while someone streams `messages`: a handler streams what its models stream, then the
 * messages it returns that they did not. Returns what the node returns (for `mapResult`).
 */
function runStreamingMessages(
  schema: CompatSchema,
  call: (state: unknown, config: LangGraphRunnableConfig) => unknown,
  task: { input: unknown; ctx: NodeContext; defaults: LangGraphRunnableConfig | undefined },
  inputKeys: readonly string[] | undefined,
): unknown {
  const state = toGraphState(schema, task.input, inputKeys);
  const config = nodeConfig(task.ctx, task.defaults, state);
  const handler = new MessagesStreamHandler(config.metadata ?? {});
  withCallbacks(config, task.ctx, handler);
  const streamed = (r: unknown) => {
    streamOutputMessages(schema, handler, state, r);
    return r;
  };
  const result = new TaskConfigStore(task.ctx, task.defaults, state, config).run(() => call(state, config));
  return isThenable(result) ? Promise.resolve(result).then(streamed) : streamed(result);
}

/** Streams the messages a node returned (to the `messages` mode) that its models did not stream. */
function streamOutputMessages(
  schema: CompatSchema,
  handler: MessagesStreamHandler,
  state: Record<string, unknown>,
  result: unknown,
): void {
  if (schema.messageKeys.size === 0 || result === null || typeof result !== "object") return;
  const items = Array.isArray(result) ? result : [result];
  for (const item of items) {
    const update = (item instanceof Command ? item.update : item) as Record<string, unknown> | undefined;
    if (!update || typeof update !== "object") continue;
    for (const key of schema.messageKeys) {
      const value = update[key];
      if (value === undefined) continue;
      const list = (Array.isArray(value) ? value : [value]).filter((m) => isBaseMessage(m) && m.getType() !== "remove");
      if (list.length === 0) continue;
      const before = new Set(
        (Array.isArray(state?.[key]) ? (state[key] as Array<{ id?: string }>) : []).map((m) => m.id),
      );
      handler.emitOutput(list, before as ReadonlySet<string>);
    }
  }
}

/** Wraps a LangGraph router `(state, config)` as a Trellis router; its Sends carry stored messages. @internal */
export function adaptRouter(
  schema: CompatSchema,
  action: NodeAction,
  options: { defaults: () => LangGraphRunnableConfig | undefined; store: () => Store | undefined },
): (state: unknown, ctx: RouterContext) => unknown {
  const run = callable(action);
  const stored = (result: unknown): unknown => {
    if (result instanceof Send) return storedSend(result);
    if (Array.isArray(result)) return result.map((r) => (r instanceof Send ? storedSend(r) : r));
    return result;
  };
  return (values, ctx) => {
    const state = toGraphState(schema, values);
    const config = routerConfig(ctx, options.defaults(), options.store(), state);
    const result = runWithConfig(config, () => run(state, config));
    return isThenable(result) ? Promise.resolve(result).then(stored) : stored(result);
  };
}
