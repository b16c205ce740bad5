import { setMaxListeners } from "node:events";
import type { Clock } from "@trellis/checkpoint";
import { NodeTimeoutError } from "../errors.js";
import type { GraphSpec, NodeSpec } from "../graph/spec.js";
import { Command, type Goto, GraphInterrupt, type Interrupt, ParentCommand } from "./command.js";
import type { NormalizedConfig } from "./config.js";
import { type ChildRunEnv, contextMethods, type NodeContext, runInScope, type TaskScope } from "./node-context.js";
import type { KnownPlain } from "./plain-check.js";
import { nodeRetryDelay, shouldRetry, sleep } from "./retry.js";
import type { EventSink } from "./stream-events.js";
import { isThenable } from "./thenable.js";
import { validateUpdate } from "./validate-update.js";

/** How one task ended. @internal */
export type TaskOutcome =
  | { kind: "done"; update: Record<string, unknown> | null; goto: readonly Goto[] }
  | { kind: "interrupted"; interrupts: Interrupt[] }
  | { kind: "error"; error: unknown }
  | { kind: "parent"; command: Command };

/** The `goto` of a node that returned a plain update: one frozen list for every such task. */
const NO_GOTO: readonly Goto[] = Object.freeze([]);

/** A task ready to run. @internal */
export interface RunnableTask {
  id: string;
  node: NodeSpec;
  input: unknown;
  superstep: number;
  resume: Record<string, unknown>;
  /** Durable steps recorded before (a re-run) or in an earlier attempt; undefined until there is one. */
  steps: Map<string, unknown> | undefined;
}

/** What every task of a run shares. @internal */
export interface TaskEnv {
  spec: GraphSpec;
  config: NormalizedConfig;
  namespace: string;
  signal: AbortSignal;
  clock: Clock;
  sink: EventSink | undefined;
  canInterrupt: boolean;
  /** What nested runs inherit; its `namespace` is the run's (shared by every task of the step). */
  child: ChildRunEnv;
  recordStep(taskId: string, key: string, value: unknown): Promise<void>;
  /** `ctx.emit`: sends to the `custom` stream mode (one function per run). */
  emit(data: unknown): void;
  /** What the run has already found plain, so values passed along are not walked again. */
  knownPlain: KnownPlain;
}

/**
 * Runs one task to an outcome, with its retry policy and timeout. Never throws. A node that returns
 * without a promise settles at once, with no promise made (a superstep of synchronous nodes creates
 * none, so none carries the `AsyncLocalStorage` scope either); otherwise the outcome's promise. @internal
 */
export function runTask(task: RunnableTask, env: TaskEnv): TaskOutcome | Promise<TaskOutcome> {
  return attemptTask(task, env, 1);
}

function attemptTask(task: RunnableTask, env: TaskEnv, attempt: number): TaskOutcome | Promise<TaskOutcome> {
  let result: unknown;
  try {
    result = runAttempt(task, env, attempt);
  } catch (error) {
    return attemptFailed(task, env, attempt, error);
  }
  if (!isThenable(result)) return settleMapped(task, env, attempt, result);
  // Promise.resolve returns a native promise as is: one promise more per task, the `then`.
  return Promise.resolve(result).then(
    (value) => settleMapped(task, env, attempt, value),
    (error: unknown) => attemptFailed(task, env, attempt, error),
  );
}

/** Settles a node's return after its `mapResult`, whose error fails the attempt as the node's would. */
function settleMapped(
  task: RunnableTask,
  env: TaskEnv,
  attempt: number,
  value: unknown,
): TaskOutcome | Promise<TaskOutcome> {
  const map = task.node.options.mapResult;
  if (map === undefined) return settle(env, task.node.name, value);
  let mapped: unknown;
  try {
    mapped = map(value);
  } catch (error) {
    return attemptFailed(task, env, attempt, error);
  }
  return settle(env, task.node.name, mapped);
}

/** What a failed attempt comes to: a pause, a command for the parent, the error, or the next attempt. */
function attemptFailed(
  task: RunnableTask,
  env: TaskEnv,
  attempt: number,
  error: unknown,
): TaskOutcome | Promise<TaskOutcome> {
  if (error instanceof GraphInterrupt) return { kind: "interrupted", interrupts: error.interrupts };
  if (error instanceof ParentCommand) {
    if (!error.arrived) return { kind: "parent", command: error.command };
    const { update, goto } = error.command;
    return settle(env, task.node.name, new Command({ ...(update !== undefined ? { update } : {}), goto }));
  }
  const policy = task.node.options.retryPolicy;
  if (env.signal.aborted || !shouldRetry(policy, error, attempt)) return { kind: "error", error };
  return sleep(env.clock, nodeRetryDelay(policy ?? {}, attempt), env.signal).then(
    () => attemptTask(task, env, attempt + 1),
    (): TaskOutcome => ({ kind: "error", error }),
  );
}

function settle(env: TaskEnv, node: string, result: unknown): TaskOutcome {
  const { spec, knownPlain } = env;
  try {
    if (result instanceof Command) {
      if (result.graph === Command.PARENT) return { kind: "parent", command: result };
      return { kind: "done", update: validateUpdate(spec.schema, node, result.update, knownPlain), goto: result.goto };
    }
    return { kind: "done", update: validateUpdate(spec.schema, node, result, knownPlain), goto: NO_GOTO };
  } catch (error) {
    return { kind: "error", error };
  }
}

/**
 * Starts one attempt: the node's result, or its promise. Not `async`: without a timeout the caller awaits
 * the node's own promise, so a wide step keeps one async frame less alive per task. May throw
 * synchronously (a synchronous node that throws); the caller awaits it inside its `try`.
 */
function runAttempt(task: RunnableTask, env: TaskEnv, attempt: number): unknown {
  const timeoutMs = task.node.options.timeout;
  let signal = env.signal;
  let cleanup: (() => void) | undefined;
  if (timeoutMs !== undefined) {
    const controller = new AbortController();
    // a subgraph run inside the node uses this signal as its own: its wide steps listen to it
    setMaxListeners(0, controller.signal);
    const onAbort = () => controller.abort(env.signal.reason);
    env.signal.addEventListener("abort", onAbort, { once: true });
    const timer = env.clock.setTimeout(
      () => controller.abort(new NodeTimeoutError(task.node.name, timeoutMs)),
      timeoutMs,
    );
    signal = controller.signal;
    cleanup = () => {
      env.clock.clearTimeout(timer);
      env.signal.removeEventListener("abort", onAbort);
    };
  }
  const scope: TaskScope = {
    ctx: undefined as unknown as NodeContext,
    resume: task.resume,
    task,
    counters: { interrupts: 0, steps: undefined, children: 0 },
    canInterrupt: env.canInterrupt,
    recordStep: env.recordStep,
    child: env.child,
  };
  const methods = contextMethods(scope);
  scope.ctx = {
    node: task.node.name,
    taskId: task.id,
    namespace: env.namespace,
    superstep: task.superstep,
    attempt,
    signal,
    config: env.config,
    user: env.config.user ?? null,
    store: env.config.store ?? env.spec.store,
    interrupt: methods.interrupt,
    step: methods.step,
    emit: env.emit,
  };
  if (timeoutMs === undefined) return runInScope(scope, () => task.node.run(task.input, scope.ctx));
  return withinTimeout(() => runInScope(scope, () => task.node.run(task.input, scope.ctx)), signal, cleanup);
}

/** Runs `start` and awaits it until `signal` (the node's timeout) aborts, then cleans up the timer. */
async function withinTimeout(
  start: () => unknown,
  signal: AbortSignal,
  cleanup: (() => void) | undefined,
): Promise<unknown> {
  try {
    return await raceAbort(start(), signal);
  } finally {
    cleanup?.();
  }
}

/** Resolves with `promise`, or rejects with the signal's reason as soon as it aborts. @internal */
export function raceAbort<T>(promise: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
