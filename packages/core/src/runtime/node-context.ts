import { AsyncLocalStorage } from "node:async_hooks";
import * as crypto from "node:crypto";
import { type CheckpointSaver, type Lease, type Store, TrellisError } from "@trellis/checkpoint";
import { GraphInterrupt, ParentCommand } from "./command.js";
import type { RunConfig, RunUser } from "./config.js";
import type { EventSink, MessageChunkMeta, StreamMode } from "./stream-events.js";
import { traceStep } from "./tracing.js";
import { assertPlainValue } from "./validate-update.js";

/**
 * What a node receives besides the state.
 *
 * @example
 * builder.addNode("draft", async (state, ctx) => {
 *   const text = await ctx.step("llm", () => model.invoke(state.messages)); // runs once, even after resume
 *   const verdict = ctx.interrupt<{ ok: boolean }>({ question: "Publish?", text });
 *   return { published: verdict.ok };
 * });
 */
export interface NodeContext {
  /** The node's name. */
  readonly node: string;
  /** Id of this task; the same when the task runs again after an interrupt, crash or retry. */
  readonly taskId: string;
  /** Subgraph namespace ("" in the root graph). */
  readonly namespace: string;
  /** Number of the superstep this task belongs to. */
  readonly superstep: number;
  /** 1 on the first attempt, then 2, 3… when the retry policy runs the node again. */
  readonly attempt: number;
  /** Aborted when the run is cancelled or the node times out. Pass it on to I/O. */
  readonly signal: AbortSignal;
  /** The run's configuration (thread id, recursion limit…). */
  readonly config: Readonly<RunConfig>;
  /**
   * The authenticated user the run acts for (`{ id }`), or `null` when there is none: the server's auth
   * is off, or the graph runs outside a server without `config.user`. A server sets it from the
   * request's credentials (for an app's own runs, the thread's owner); no client can write it. Key
   * per-user data on it, never on a thread id or a client-sent `configurable` value.
   *
   * @example
   * builder.addNode("greet", (state, ctx) => ({ greeting: `Hello ${ctx.user?.id ?? "guest"}` }));
   */
  readonly user: RunUser | null;
  /**
   * The long-term memory store shared across threads (LangGraph's `getStore()`): the run config's
   * `store`, else the one given to `compile({ store })`; undefined when neither gave one.
   *
   * @example
   * await ctx.store?.put(["memories", userId], "likes", { text: "green tea" });
   */
  readonly store?: Store | undefined;
  /**
   * Pauses the run and shows `value` to the person; returns their answer when the run resumes. The i-th
   * call in a node returns the i-th answer.
   */
  interrupt<R = unknown>(value: unknown): R;
  /**
   * Runs `fn` once for this task and records its result. When the task runs again, the recorded result
   * is returned and `fn` is not called. Names must be unique within the node (repeats get `#2`, `#3`…).
   */
  step<T>(name: string, fn: (signal: AbortSignal) => T | Promise<T>): Promise<T>;
  /** Sends `data` to the `custom` stream mode. */
  emit(data: unknown): void;
}

/** What a nested graph run inherits from the task that starts it. @internal */
export interface ChildRunEnv {
  saver: CheckpointSaver | undefined;
  threadId: string | undefined;
  lease: Lease | undefined;
  sink: EventSink | undefined;
  namespace: string;
  config: RunConfig;
}

/** Per-task state behind a {@link NodeContext}. @internal */
export interface TaskScope {
  ctx: NodeContext;
  /** Interrupt id → resume value given for this task. */
  resume: Readonly<Record<string, unknown>>;
  /**
   * The task's durable steps, key → recorded result, kept across its attempts; the map is made on the
   * first result recorded, so a task that records none allocates none.
   */
  task: { steps: Map<string, unknown> | undefined };
  /** Counters that restart with every attempt (`steps` made on the first `ctx.step`). */
  counters: { interrupts: number; steps: Map<string, number> | undefined; children: number };
  /** Set inside {@link withScope}: keeps the scope's interrupt ids and step keys apart. */
  keyPrefix?: string;
  canInterrupt: boolean;
  /** Records a durable step's result for task `taskId` (shared by the run's tasks). */
  recordStep(taskId: string, key: string, value: unknown): Promise<void>;
  child: ChildRunEnv;
}

const storage = new AsyncLocalStorage<TaskScope>();

/** @internal */
export function runInScope<T>(scope: TaskScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The scope of the task running this code, if any. @internal */
export function currentScope(): TaskScope | undefined {
  return storage.getStore();
}

/**
 * The context of the node that is running this code. For tools and helpers called from a node.
 *
 * @example
 * const { signal, threadId } = { signal: getNodeContext().signal, threadId: getNodeContext().config.threadId };
 */
export function getNodeContext(): NodeContext {
  const scope = storage.getStore();
  if (!scope) {
    throw new TrellisError("INVALID_CONFIG", "getNodeContext() was called outside a running graph node.");
  }
  return scope.ctx;
}

/**
 * The long-term memory store of the node running this code (its `ctx.store`), for tools and code
 * ported from LangGraph's `getStore()`. Undefined outside a node or when the run has no store.
 *
 * @example
 * const memories = await getStore()?.search(["memories", userId], { query: "drinks" });
 */
export function getStore(): Store | undefined {
  return storage.getStore()?.ctx.store;
}

/**
 * Pauses the running node until a person answers; the free-function form of `ctx.interrupt`, for code
 * ported from LangGraph and for tools.
 *
 * @example
 * const answer = interrupt<string>({ type: "clarification_request", questions });
 */
export function interrupt<R = unknown>(value: unknown): R {
  const scope = storage.getStore();
  if (!scope) throw new TrellisError("INVALID_CONFIG", "interrupt() was called outside a running graph node.");
  return scope.ctx.interrupt<R>(value);
}

/**
 * Sends an LLM token chunk to the `messages` stream mode, tagged with the running node. Does nothing
 * outside a node or when no one streams messages.
 *
 * @example
 * for await (const delta of model.stream(messages)) emitMessageChunk(delta);
 */
export function emitMessageChunk(chunk: unknown, meta: Record<string, unknown> = {}): void {
  const scope = storage.getStore();
  const sink = scope?.child.sink;
  if (!scope || !sink?.modes.has("messages")) return;
  const { ctx } = scope;
  sink.push({
    mode: "messages",
    namespace: splitNamespace(ctx.namespace),
    data: [chunk, chunkMetadata(meta, ctx)],
  });
}

/** The task's keys win over `meta`'s; they come first and are set again (keys added after a spread are slow on V8). */
function chunkMetadata(meta: Record<string, unknown>, ctx: NodeContext): MessageChunkMeta {
  const out = { node: ctx.node, namespace: ctx.namespace, taskId: ctx.taskId, step: ctx.superstep, ...meta };
  out.node = ctx.node;
  out.namespace = ctx.namespace;
  out.taskId = ctx.taskId;
  out.step = ctx.superstep;
  return out;
}

/**
 * True when the run of the node running this code streams `mode` to someone (a caller of `stream`, a
 * server's client), so a node can skip work that only a stream would show — e.g. asking a model for
 * tokens when nobody streams `messages`.
 *
 * @example
 * const reply = isStreaming("messages") ? await streamReply(messages) : await model.invoke(messages);
 */
export function isStreaming(mode: StreamMode): boolean {
  return storage.getStore()?.child.sink?.modes.has(mode) === true;
}

/** `"a:1|b:2"` → `["a:1", "b:2"]`. @internal */
export function splitNamespace(namespace: string): string[] {
  return namespace === "" ? [] : namespace.split("|");
}

/** Deterministic id of the `index`-th interrupt of a task. @internal */
export function interruptId(namespace: string, taskId: string, index: number | string): string {
  const text = `${namespace}\u0000${taskId}\u0000${index}`;
  // the one-shot `crypto.hash` where Node has it (20.12+): the same digest without a Hash object per id
  return (sha1Hex ? sha1Hex("sha1", text, "hex") : crypto.createHash("sha1").update(text).digest("hex")).slice(0, 32);
}

const sha1Hex: typeof crypto.hash | undefined = typeof crypto.hash === "function" ? crypto.hash : undefined;

/**
 * Runs `fn` with its interrupts and durable steps numbered apart under `key`. Parallel work inside one
 * node — tool calls, say — then gets interrupt ids and step records that do not depend on which branch
 * got there first, so each resumes with its own answer. `key` must be stable across re-runs (a tool
 * call id, an item id).
 *
 * @example
 * await Promise.all(calls.map((call) => withScope(call.id, () => runTool(tools, call))));
 */
export function withScope<T>(key: string, fn: () => T): T {
  const parent = storage.getStore();
  if (!parent) throw new TrellisError("INVALID_CONFIG", "withScope() was called outside a running graph node.");
  const counters = { interrupts: 0, steps: undefined, children: 0 };
  const keyPrefix = `${parent.keyPrefix ?? ""}${key}/`;
  // keys first, then set: a literal adding keys after a spread is slow on V8
  const scope: TaskScope = { keyPrefix, ...parent };
  scope.counters = counters;
  scope.keyPrefix = keyPrefix;
  const methods = contextMethods(scope);
  scope.ctx = { ...parent.ctx, interrupt: methods.interrupt, step: methods.step };
  return storage.run(scope, fn);
}

/**
 * True for the errors the runtime throws through user code to pause a run or route between graphs
 * (`interrupt()`, `Command.PARENT`). Code that catches errors broadly — a tool runner, a retry helper —
 * must rethrow these.
 *
 * @example
 * try { await work(); } catch (e) { if (isControlFlowSignal(e)) throw e; report(e); }
 */
export function isControlFlowSignal(error: unknown): boolean {
  return error instanceof GraphInterrupt || error instanceof ParentCommand;
}

/** Builds the `interrupt` and `step` methods of a context over a scope. @internal */
export function contextMethods(scope: TaskScope): Pick<NodeContext, "interrupt" | "step"> {
  return {
    interrupt<R>(value: unknown): R {
      const { ctx } = scope;
      const index = scope.counters.interrupts++;
      const id = interruptId(ctx.namespace, ctx.taskId, scope.keyPrefix ? `${scope.keyPrefix}${index}` : index);
      if (Object.hasOwn(scope.resume, id)) return scope.resume[id] as R;
      if (!scope.canInterrupt) {
        throw new TrellisError(
          "CHECKPOINTER_REQUIRED",
          `Node "${ctx.node}" called interrupt(), which needs a checkpointer to remember where to resume. Compile the graph with { checkpointer } and pass a threadId.`,
          { details: { node: ctx.node } },
        );
      }
      assertPlainValue(value, ctx.node, "interrupt value");
      throw new GraphInterrupt([{ id, value, node: ctx.node, namespace: ctx.namespace }]);
    },
    async step<T>(name: string, fn: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
      scope.counters.steps ??= new Map();
      const n = scope.counters.steps.get(name) ?? 0;
      scope.counters.steps.set(name, n + 1);
      const key = `${scope.keyPrefix ?? ""}${n === 0 ? name : `${name}#${n + 1}`}`;
      const recorded = scope.task.steps;
      if (recorded?.has(key)) return recorded.get(key) as T;
      const value = await traceStep(key, () => fn(scope.ctx.signal));
      assertPlainValue(value, scope.ctx.node, `result of step "${key}"`);
      if (!scope.task.steps) scope.task.steps = new Map();
      scope.task.steps.set(key, value);
      await scope.recordStep(scope.ctx.taskId, key, value);
      return value;
    },
  };
}
