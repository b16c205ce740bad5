import { setMaxListeners } from "node:events";
import type { Context } from "@opentelemetry/api";
import {
  type CheckpointMetadata,
  type CheckpointRef,
  type CheckpointSaver,
  type CheckpointTuple,
  type Lease,
  LeaseError,
  type PlannedTask,
  TrellisError,
} from "@trellis/checkpoint";
import { START, WRITE } from "../constants.js";
import { GraphRecursionError, ResumeError, RunCancelledError } from "../errors.js";
import type { GraphSpec } from "../graph/spec.js";
import { checkResumeAnswers, checkTypedKeys } from "../schema/check-state.js";
import { checkInputKeys, pickInput } from "../schema/input-output-keys.js";
import { applyWrites, type TaskWrite } from "./apply.js";
import { CheckpointWriter } from "./checkpoint-writer.js";
import { Command, type Interrupt, ParentCommand } from "./command.js";
import type { NormalizedConfig } from "./config.js";
import { acquireLeaseAndLoad, executionLeaseOwner, type LeaseKeeper } from "./lease-keeper.js";
import type { ChildRunEnv } from "./node-context.js";
import { breakpointOf, closeDanglingToolCalls, decidePausedInput } from "./paused-input.js";
import type { KnownPlain } from "./plain-check.js";
import { isResumeMap, pendingInterrupts, resolveResume } from "./resume.js";
import { type Finished, type RouterContext, route } from "./route.js";
import { decodeResult, encodeResult, type PlannedStepTask, planTasks } from "./step-tasks.js";
import type { EventSink, UnnumberedEvent } from "./stream-events.js";
import { raceAbort, runTask, type TaskEnv, type TaskOutcome } from "./task-runner.js";
import { isThenable } from "./thenable.js";
import { advance, freshState, stateFromTuple, type ThreadState } from "./thread-state.js";
import { RunTracing, recordError, TRACEPARENT_KEY } from "./tracing.js";
import { countRunUsage, type RunUsage } from "./usage.js";
import { validateUpdate } from "./validate-update.js";

/** One run of a graph on one thread and namespace. @internal */
export interface LoopRequest {
  spec: GraphSpec;
  input: unknown;
  config: NormalizedConfig;
  sink: EventSink | undefined;
  /** Set when the run is a subgraph called from a running task. */
  parent?: { env: ChildRunEnv; namespace: string; resume: Readonly<Record<string, unknown>>; signal: AbortSignal };
}

/**
 * Most tasks one superstep may run. recursionLimit stops a run that goes on too long; a Send fan-out
 * that multiplies every step (each task sending several more) would exhaust memory long before that,
 * so a plan wider than this fails with GRAPH_RECURSION instead. @internal
 */
export const MAX_TASKS_PER_STEP = 100_000;

/**
 * How a run stopped, when it did not fail.
 *
 * @example
 * const events = graph.streamEvents(input, { threadId });
 * for await (const e of events) forward(e); // the run starts on the first read
 * const outcome: RunOutcome = await events.outcome;
 * if (outcome.status === "interrupted") console.log(outcome.interrupts, outcome.next);
 */
export interface RunOutcome {
  status: "done" | "interrupted";
  values: Record<string, unknown>;
  /** Interrupts waiting for an answer (empty when paused at a static breakpoint). */
  interrupts: Interrupt[];
  /** Nodes of the next superstep. */
  next: string[];
  checkpointId: string | undefined;
  /** Tokens the run's model calls used, per node and per model; absent when it made none. */
  usage?: RunUsage;
}

/** Runs a graph until it ends, pauses or fails. @internal */
export function runLoop(request: LoopRequest): Promise<RunOutcome> {
  if (request.parent) return new GraphRun(request).execute();
  return countRunUsage(() => new GraphRun(request).execute());
}

function isDone(outcome: TaskOutcome): boolean {
  return outcome.kind === "done";
}

class GraphRun {
  readonly #spec: GraphSpec;
  readonly #config: NormalizedConfig;
  readonly #saver: CheckpointSaver | undefined;
  readonly #threadId: string | undefined;
  readonly #namespace: string;
  readonly #nsPath: string[];
  readonly #sink: EventSink | undefined;
  readonly #controller = new AbortController();
  readonly #writer: CheckpointWriter;
  /** Objects this run has found plain: a wide state passed along by reference is walked once. */
  readonly #knownPlain: KnownPlain = new WeakMap();
  #lease: LeaseKeeper | undefined;
  #parentLease: Lease | undefined;
  /** The run's spans; undefined unless a tracer provider records them. */
  #tracing: RunTracing | undefined;
  #env: { state: ThreadState; env: TaskEnv } | undefined;
  #routerCtx: RouterContext | undefined;

  constructor(private readonly request: LoopRequest) {
    const { spec, config, parent } = request;
    this.#spec = spec;
    this.#config = config;
    this.#saver = parent ? (spec.checkpointer ?? parent.env.saver) : spec.checkpointer;
    this.#threadId = parent ? parent.env.threadId : config.threadId;
    this.#namespace = parent ? parent.namespace : "";
    this.#nsPath = this.#namespace === "" ? [] : this.#namespace.split("|");
    this.#sink = request.sink;
    this.#parentLease = parent?.env.lease;
    // Every task of a step may listen to the run's signal at once (subgraph runs, node timeouts): a
    // fan-out of 100 is not a listener leak, so Node's warning past 10 listeners does not apply.
    setMaxListeners(0, this.#controller.signal);
    this.#writer = new CheckpointWriter(
      this.#saver,
      config.durability,
      () => this.#lease?.current ?? this.#parentLease,
      spec.snapshotEvery,
      () => this.#lease,
    );
  }

  async execute(): Promise<RunOutcome> {
    const signals = [this.request.config.signal, this.request.parent?.signal].filter((s): s is AbortSignal => !!s);
    // Removed when the run ends: a long-lived signal (a server's, a parent run's over many subgraph
    // calls) would otherwise collect one listener per run, and keep every finished run alive.
    const listeners: Array<[AbortSignal, () => void]> = [];
    try {
      for (const s of signals) {
        if (s.aborted) throw new RunCancelledError(this.#threadId, s.reason);
        const onAbort = () => this.#controller.abort(s.reason);
        s.addEventListener("abort", onAbort, { once: true });
        listeners.push([s, onAbort]);
      }
      return await this.#execute();
    } finally {
      for (const [s, onAbort] of listeners) s.removeEventListener("abort", onAbort);
    }
  }

  async #execute(): Promise<RunOutcome> {
    if (this.#saver && this.#threadId === undefined) {
      throw new TrellisError(
        "THREAD_REQUIRED",
        `Graph "${this.#spec.name}" has a checkpointer, so each run needs a thread: pass { threadId } (or { configurable: { thread_id } }) in the config.`,
      );
    }
    // The lease, and with a saver that can, the thread's checkpoint read in the same transaction.
    let loaded: { tuple: CheckpointTuple | undefined } | undefined;
    if (this.#saver && this.#threadId !== undefined && !this.request.parent) {
      const taken = await acquireLeaseAndLoad(this.#saver, this.#loadRef(this.#threadId), this.#spec.clock, {
        owner: executionLeaseOwner(this.#config),
        ttlMs: this.#spec.leaseTtlMs,
        // Another writer took the thread: stop now rather than at the next put, which would be refused.
        onLost: (error) => this.#controller.abort(error),
      });
      this.#lease = taken.keeper;
      loaded = taken.loaded;
    }
    let state: ThreadState | undefined;
    const startTime = Date.now();
    try {
      state = await this.#load(loaded);
      this.#tracing = this.#startTracing(state, startTime);
      const continuing = await this.#applyInput(state);
      const outcome = await this.#loop(state, continuing);
      await this.#writer.finish(state);
      this.#tracing?.end(outcome);
      return outcome;
    } catch (error) {
      (this.#tracing ?? this.#startTracing(state, startTime))?.end({ error });
      // A thread that never got its first checkpoint (the input or Command was refused) stays empty.
      const started = state && (state.stored || state.checkpoint.step > -2);
      if (state && started) await this.#writer.finish(state).catch(() => undefined);
      if (this.#controller.signal.aborted && !(error instanceof ParentCommand)) {
        const reason: unknown = this.#controller.signal.reason;
        if (reason instanceof LeaseError) throw reason; // the lease was lost: LEASE_LOST, not a cancel
        throw error instanceof TrellisError && error.code === "RUN_CANCELLED"
          ? error
          : new RunCancelledError(this.#threadId, reason);
      }
      throw error;
    } finally {
      await this.#lease?.release();
    }
  }

  /** Starts the run's span; a run continuing a paused thread links to the run that paused it. */
  #startTracing(state: ThreadState | undefined, startTime: number): RunTracing | undefined {
    const paused = state?.stored && state.checkpoint.next.length > 0;
    const pausedBy = paused ? (state.checkpoint.metadata as Record<string, unknown>)[TRACEPARENT_KEY] : undefined;
    const assistantId = this.request.parent ? undefined : this.#config.metadata?.assistant_id;
    return RunTracing.start({
      graph: this.#spec.name,
      threadId: this.#threadId,
      runId: this.#config.runId,
      assistantId: typeof assistantId === "string" ? assistantId : undefined,
      namespace: this.#namespace,
      carrier: this.request.parent ? undefined : this.#config.traceContext,
      pausedBy: typeof pausedBy === "string" ? pausedBy : undefined,
      startTime,
    });
  }

  /** The checkpoint a run starts from: the head of its namespace, or the one the config names. */
  #loadRef(threadId: string): CheckpointRef {
    const { checkpointId } = this.#config;
    return {
      threadId,
      namespace: this.#namespace,
      ...(checkpointId !== undefined && !this.request.parent ? { checkpointId } : {}),
    };
  }

  /** The run's thread state; `loaded` when the lease's transaction already read it. */
  async #load(loaded?: { tuple: CheckpointTuple | undefined }): Promise<ThreadState> {
    const { spec, config } = this.request;
    const tuple = loaded
      ? loaded.tuple
      : this.#saver && this.#threadId !== undefined
        ? await this.#saver.get(this.#loadRef(this.#threadId))
        : undefined;
    if (!tuple && config.checkpointId !== undefined && !this.request.parent) {
      throw new TrellisError(
        "CHECKPOINT_NOT_FOUND",
        `Thread "${this.#threadId}" has no checkpoint ${config.checkpointId}. List them with getStateHistory(config).`,
        { details: { threadId: this.#threadId, checkpointId: config.checkpointId } },
      );
    }
    const expected = this.request.parent ? undefined : config.expectedCheckpointId;
    if (expected !== undefined && tuple?.checkpoint.id !== expected) {
      throw new ResumeError(
        "RESUME_MISMATCH",
        `Thread "${this.#threadId}" has moved on from checkpoint ${expected} (now at ${tuple?.checkpoint.id ?? "none"}): the pause this resume answered is gone. Read the thread's state and answer what it asks now.`,
        { details: { threadId: this.#threadId, expected, head: tuple?.checkpoint.id } },
      );
    }
    if (tuple) {
      const state = stateFromTuple(spec.schema, tuple);
      // Time travel to an explicit checkpoint re-runs its tasks, as LangGraph does: results recorded
      // there belong to the branch that already went on from it.
      if (config.checkpointId !== undefined && !this.request.parent) {
        for (const writes of state.pending.values()) writes.delete(WRITE.result);
      }
      return state;
    }
    return freshState(spec.schema, {
      threadId: this.#threadId ?? "",
      namespace: this.#namespace,
      id: spec.nextId(),
      now: spec.clock.now(),
    });
  }

  /** Applies the run's input; returns true when the run continues a stored checkpoint. */
  async #applyInput(state: ThreadState): Promise<boolean> {
    let input = this.request.input;
    const parent = this.request.parent;
    if (parent && state.stored && state.checkpoint.next.length > 0) {
      // A subgraph task running again: continue where the subgraph stopped instead of starting over.
      input = Object.keys(parent.resume).length > 0 ? new Command({ resume: parent.resume }) : null;
    }
    if (input instanceof Command) return this.#applyCommand(state, input);
    if (input === null || input === undefined) {
      if (!state.stored) {
        throw new ResumeError(
          "NOTHING_TO_RESUME",
          `Thread "${this.#threadId ?? "(none)"}" has no checkpoint to continue from. Pass an input to start it.`,
          { details: { threadId: this.#threadId } },
        );
      }
      return true;
    }
    const given = validateUpdate(this.#spec.schema, "input", input, this.#knownPlain) ?? {};
    // a subgraph takes its input keys from its parent's state; a caller's input may set only them
    if (!parent) checkInputKeys(this.#spec, given);
    const update = parent ? pickInput(this.#spec, given) : given;
    const writes: TaskWrite[] = [{ node: "input", update }];
    if (!parent && state.stored) {
      const pending = pendingInterrupts(state.pending);
      const breakpoint = breakpointOf(this.#spec, {
        next: state.checkpoint.next.map((p) => p.node),
        writers: Object.keys(state.checkpoint.metadata.writes ?? {}),
        interrupts: pending.length,
      });
      const decision = decidePausedInput(this.#spec.onInputWhilePaused, pending, update, this.#threadId, breakpoint);
      if (decision.kind === "resume") return this.#applyCommand(state, new Command({ resume: decision.resume }));
      if (decision.kind === "continue") return this.#applyCommand(state, new Command({ update: decision.update }));
      // the pause is discarded: tool calls it left open get a reply before the new input
      if (pending.length > 0)
        writes.unshift({ node: "input", update: closeDanglingToolCalls(this.#spec.schema, state.values) });
    }
    const { values, changed } = applyWrites(this.#spec.schema, state.values, writes);
    this.#checkSize(values, state);
    if (!this.request.parent) checkTypedKeys(this.#spec, values, Object.keys(update), "The run's input");
    this.#spec.validateState?.(values);
    const { next, barriers } = await route(this.#spec, values, [{ node: START, goto: [] }], {}, this.#routerContext());
    this.#advance(state, {
      values,
      changed,
      next,
      barriers,
      source: "input",
      writes: { [START]: Object.keys(update) },
    });
    await this.#writer.checkpoint(state);
    this.#emitValues(state);
    return false;
  }

  async #applyCommand(state: ThreadState, command: Command): Promise<boolean> {
    if (!state.stored) {
      throw new ResumeError(
        "NOTHING_TO_RESUME",
        `Thread "${this.#threadId ?? "(none)"}" has no checkpoint, so there is nothing for a Command to resume or update. Start it with an input first.`,
        { details: { threadId: this.#threadId } },
      );
    }
    const hasRouting = command.update !== undefined || command.goto.length > 0;
    if (command.hasResume) {
      if (command.goto.length > 0) {
        throw new TrellisError(
          "INVALID_ARGUMENT",
          "A Command passed to invoke may carry `resume` (with an `update`), or `goto`, but not both. Route with updateState first, then resume.",
        );
      }
      // LangGraph's Command({ update, resume }): a reviewer edits the state while answering the pause
      if (command.update !== undefined) await this.#updateKeepingPause(state, command.update);
      const pending = pendingInterrupts(state.pending);
      if (pending.length === 0 && !isResumeMap(command.resume) && state.checkpoint.next.length > 0) {
        // Paused at a breakpoint or after a failure: as in LangGraph, a resume simply continues.
        return true;
      }
      const answers = resolveResume(pending, command.resume, {
        threadId: this.#threadId,
        strict: !this.request.parent,
      });
      if (this.#spec.hasResumeSchemas) {
        checkResumeAnswers(this.#spec, pending, Object.assign({}, ...answers.values()));
      }
      for (const [taskId, given] of answers) {
        const previous = (state.pending.get(taskId)?.get(WRITE.resume) ?? {}) as Record<string, unknown>;
        // held: stored with the next checkpoint (or the run's last write), see docs/checkpoints.md
        await this.#writer.writes(state, taskId, [[WRITE.resume, { ...previous, ...given }]], true);
      }
      return true;
    }
    if (!hasRouting) return true;
    const update = validateUpdate(this.#spec.schema, "input", command.update, this.#knownPlain) ?? {};
    const { values, changed } = applyWrites(this.#spec.schema, state.values, [{ node: "input", update }]);
    this.#checkSize(values, state);
    if (!this.request.parent) checkTypedKeys(this.#spec, values, Object.keys(update), "The run's input");
    this.#spec.validateState?.(values);
    const next =
      command.goto.length > 0
        ? (await route(this.#spec, values, [{ node: "input", goto: command.goto }], {}, this.#routerContext())).next
        : state.checkpoint.next;
    this.#advance(state, {
      values,
      changed,
      next,
      barriers: state.checkpoint.barriers,
      source: "update",
      writes: { [START]: Object.keys(update) },
    });
    await this.#writer.checkpoint(state);
    this.#emitValues(state);
    return true;
  }

  /**
   * Writes the graph's `onNodeError` update for a failed step, keeping its tasks (see
   * {@link #updateKeepingPause}); nothing for a cancelled run, a subgraph's run, or when the hook
   * returns nothing or fails itself (the node's error is what the run reports either way).
   */
  async #recordFailure(state: ThreadState, node: string, error: unknown): Promise<void> {
    const hook = this.#spec.onNodeError;
    if (!hook || this.request.parent || this.#controller.signal.aborted || !this.#saver) return;
    let update: Record<string, unknown> | undefined;
    try {
      update = hook(error, { node, state: state.values as Record<string, unknown> });
    } catch {
      return;
    }
    if (!update || Object.keys(update).length === 0) return;
    try {
      await this.#updateKeepingPause(state, update);
    } catch {
      // the update could not be written (refused by the schema, lease lost): the node's error stands
    }
  }

  /**
   * Applies an update as a new checkpoint that keeps the thread's pause: the same next tasks under the
   * same task ids (a fork's `task_base`), and the pending writes of the checkpoint it follows — so the
   * pending interrupts keep their ids and the resume that comes with the update answers them.
   */
  async #updateKeepingPause(state: ThreadState, raw: unknown): Promise<void> {
    const carried = state.pending;
    const metadata = state.checkpoint.metadata as { task_base?: unknown };
    const taskBase = typeof metadata.task_base === "string" ? metadata.task_base : state.checkpoint.id;
    const update = validateUpdate(this.#spec.schema, "input", raw, this.#knownPlain) ?? {};
    const { values, changed } = applyWrites(this.#spec.schema, state.values, [{ node: "input", update }]);
    this.#checkSize(values, state);
    if (!this.request.parent) checkTypedKeys(this.#spec, values, Object.keys(update), "The run's input");
    this.#spec.validateState?.(values);
    this.#advance(
      state,
      {
        values,
        changed,
        next: state.checkpoint.next,
        barriers: state.checkpoint.barriers,
        source: "update",
        writes: { [START]: Object.keys(update) },
      },
      { task_base: taskBase },
    );
    await this.#writer.checkpoint(state);
    for (const [taskId, writes] of carried) await this.#writer.writes(state, taskId, [...writes]);
    this.#emitValues(state);
  }

  async #loop(state: ThreadState, continuing: boolean): Promise<RunOutcome> {
    const counts = new Map<string, number>();
    let stepsRun = 0;
    // a recovered run keeps the pause it had reached; only an update's checkpoint is run past, as its run did
    const recover = this.#config.recover === true && !this.request.parent;
    if (recover && this.#reachedPause(state)) return this.#outcome(state, "interrupted");
    let skipBreakpoint = continuing && !(recover && state.checkpoint.metadata.source !== "update");
    for (;;) {
      const plan = state.checkpoint.next;
      if (plan.length === 0) return this.#outcome(state, "done");
      if (!skipBreakpoint && this.#breaks(this.#spec.interruptBefore, this.#config.interruptBefore, plan)) {
        return this.#outcome(state, "interrupted");
      }
      if (stepsRun > 0 && this.#config.drainSignal?.aborted) return this.#outcome(state, "interrupted");
      skipBreakpoint = false;
      if (stepsRun >= this.#config.recursionLimit) throw this.#recursionError(counts);
      if (plan.length > MAX_TASKS_PER_STEP) throw this.#breadthError(plan, state.checkpoint.step + 1);
      stepsRun++;
      for (const p of plan) counts.set(p.node, (counts.get(p.node) ?? 0) + 1);
      const superstep = state.checkpoint.step + 1;
      const tasks = planTasks(this.#spec, state, superstep);
      const traced = this.#tracing?.superstep(
        superstep,
        plan.map((p) => p.node),
      );
      let outcomes: TaskOutcome[];
      try {
        // Awaited only when something in the step was asynchronous: see runTask and route.
        const ran = this.#runStep(state, tasks, superstep, traced?.context);
        outcomes = isThenable(ran) ? await ran : ran;
        if (!outcomes.every(isDone)) {
          const stop = await this.#settle(state, tasks, outcomes);
          if (stop) return stop;
        }
      } catch (error) {
        if (traced) recordError(traced.span, error);
        throw error;
      } finally {
        traced?.span.end();
      }
      const finished: Finished[] = [];
      const writes: TaskWrite[] = [];
      const writesMeta: Record<string, string[]> = {};
      for (let i = 0; i < tasks.length; i++) {
        const outcome = outcomes[i] as Extract<TaskOutcome, { kind: "done" }>;
        const node = (tasks[i] as PlannedStepTask).planned.node;
        // Every node that ran is listed, even with no keys: updateState infers `asNode` from it.
        const listed = writesMeta[node];
        if (outcome.update) {
          writes.push({ node, update: outcome.update });
          const keys = Object.keys(outcome.update);
          writesMeta[node] = listed === undefined || listed.length === 0 ? keys : [...new Set([...listed, ...keys])];
        } else if (listed === undefined) {
          writesMeta[node] = [];
        }
        finished.push({ node, goto: outcome.goto });
      }
      const { values, changed } = applyWrites(this.#spec.schema, state.values, writes);
      this.#checkSize(values, state);
      const routing = route(this.#spec, values, finished, state.checkpoint.barriers, this.#routerContext());
      const routed = isThenable(routing) ? await routing : routing;
      this.#advance(state, { values, changed, ...routed, source: "loop", writes: writesMeta });
      const stored = this.#writer.checkpoint(state, routed.next.length === 0); // nothing next: the run's last write
      if (stored) await stored;
      this.#emitStep(state, tasks, outcomes);
      if (this.#breaks(this.#spec.interruptAfter, this.#config.interruptAfter, plan)) {
        return this.#outcome(state, "interrupted");
      }
    }
  }

  /**
   * Runs a step's tasks. One task with no debug stream or tracing runs without a promise when its node
   * returns without one; anything else goes through {@link #runTasks}.
   */
  #runStep(
    state: ThreadState,
    tasks: PlannedStepTask[],
    superstep: number,
    traced: Context | undefined,
  ): TaskOutcome[] | Promise<TaskOutcome[]> {
    const task = tasks[0] as PlannedStepTask;
    if (tasks.length !== 1 || task.recorded || (traced && this.#tracing) || this.#sink?.modes.has("debug")) {
      return this.#runTasks(state, tasks, superstep, traced);
    }
    const signal = this.#controller.signal;
    const started = runTask(task.runnable, this.#taskEnv(state));
    if (isThenable(started)) return raceAbort(started, signal).then((outcome) => [outcome]);
    if (signal.aborted) throw signal.reason;
    return [started];
  }

  async #runTasks(
    state: ThreadState,
    tasks: PlannedStepTask[],
    superstep: number,
    traced: Context | undefined,
  ): Promise<TaskOutcome[]> {
    const outcomes: TaskOutcome[] = new Array(tasks.length);
    const env = this.#taskEnv(state);
    const many = tasks.length > 1;
    const debug = this.#sink?.modes.has("debug") ? this.#sink : undefined;
    const runOne = async (i: number) => {
      const task = tasks[i] as PlannedStepTask;
      if (task.recorded) {
        outcomes[i] = decodeResult(task.recorded);
        return;
      }
      const runnable = task.runnable;
      // stamped when the task starts and ends, not when a reader gets to the event: a server's run
      // timeline places the task's model and tool calls (stamped when they start) inside it
      const node = runnable.node.name;
      debug?.push(
        this.#debug({ type: "task", step: superstep, taskId: runnable.id, node, timestamp: this.#spec.clock.now() }),
      );
      const tracing = traced && this.#tracing;
      const outcome = tracing
        ? await tracing.task<TaskOutcome>(traced, { id: runnable.id, node: runnable.node.name, superstep }, () =>
            runTask(runnable, env),
          )
        : await runTask(runnable, env);
      outcomes[i] = outcome;
      debug?.push(
        this.#debug({
          type: "task_result",
          step: superstep,
          taskId: runnable.id,
          node,
          timestamp: this.#spec.clock.now(),
          status: outcome.kind === "done" ? "done" : outcome.kind === "error" ? "error" : "interrupted",
          ...(outcome.kind === "error" ? { error: String((outcome.error as Error)?.message ?? outcome.error) } : {}),
        }),
      );
      // Recorded so a re-run of the step skips this task; without a saver there is no re-run.
      if (many && this.#saver && outcome.kind === "done") {
        await this.#writer.writes(state, runnable.id, [[WRITE.result, encodeResult(outcome)]]);
      }
    };
    let all: Promise<unknown>;
    if (!many) all = runOne(0);
    else if (this.#config.maxConcurrency >= tasks.length) {
      // All at once: no pool of workers, so one async frame less stays alive per task of a wide step.
      all = Promise.all(tasks.map((_, i) => runOne(i)));
    } else {
      const limit = this.#config.maxConcurrency;
      let cursor = 0;
      const worker = async () => {
        while (cursor < tasks.length) await runOne(cursor++);
      };
      all = Promise.all(Array.from({ length: limit }, worker));
    }
    await raceAbort(all, this.#controller.signal);
    return outcomes;
  }

  /** Records interrupts and errors of a step; returns the outcome when the run must stop here. */
  async #settle(
    state: ThreadState,
    tasks: PlannedStepTask[],
    outcomes: TaskOutcome[],
  ): Promise<RunOutcome | undefined> {
    let error: { error: unknown } | undefined;
    let parent: Command | undefined;
    const interrupts: Interrupt[] = [];
    for (let i = 0; i < tasks.length; i++) {
      const outcome = outcomes[i] as TaskOutcome;
      const taskId = (tasks[i] as PlannedStepTask).id;
      if (outcome.kind === "error") {
        error ??= { error: outcome.error };
        const e = outcome.error as { name?: string; message?: string };
        await this.#writer.writes(state, taskId, [
          [WRITE.error, { name: e?.name ?? "Error", message: e?.message ?? String(e) }],
        ]);
      } else if (outcome.kind === "interrupted") {
        interrupts.push(...outcome.interrupts);
        await this.#writer.writes(state, taskId, [[WRITE.interrupt, outcome.interrupts]], true); // stored below, with the lease's release
      } else if (outcome.kind === "parent") {
        parent ??= outcome.command;
      }
    }
    if (error) {
      const failed = tasks[outcomes.findIndex((o) => o.kind === "error")];
      if (failed) await this.#recordFailure(state, failed.planned.node, error.error);
      throw error.error;
    }
    if (parent) throw new ParentCommand(parent);
    if (interrupts.length === 0 && !outcomes.some((o) => o.kind === "interrupted")) return undefined;
    // the pause is on disk (with the lease given back: the run writes nothing after it) before any
    // event announces it, so a question someone saw is never lost with the process
    await this.#writer.storeHeld(!this.request.parent);
    if (this.#sink?.modes.has("updates") && interrupts.length > 0) {
      this.#push({ mode: "updates", namespace: this.#nsPath, data: { __interrupt__: interrupts } });
    }
    return this.#outcome(state, "interrupted");
  }

  /** What the run's tasks share; made again only when the lease the tasks pass on has changed. */
  #taskEnv(state: ThreadState): TaskEnv {
    const lease = this.#lease?.current ?? this.#parentLease;
    const cached = this.#env;
    if (cached && cached.state === state && cached.env.child.lease === lease) return cached.env;
    const sink = this.#sink;
    const nsPath = this.#nsPath;
    const env: TaskEnv = {
      spec: this.#spec,
      config: this.#config,
      namespace: this.#namespace,
      signal: this.#controller.signal,
      clock: this.#spec.clock,
      sink,
      canInterrupt: this.#saver !== undefined,
      child: {
        saver: this.#saver,
        threadId: this.#threadId,
        lease,
        sink,
        config: this.#config,
        namespace: this.#namespace,
      },
      recordStep: (taskId, key, value) => this.#writer.writes(state, taskId, [[`${WRITE.stepPrefix}${key}`, value]]),
      emit(data) {
        if (sink?.modes.has("custom")) sink.push({ mode: "custom", namespace: [...nsPath], data });
      },
      knownPlain: this.#knownPlain,
    };
    this.#env = { state, env };
    return env;
  }

  #advance(
    state: ThreadState,
    step: {
      values: Record<string, unknown>;
      changed: ReadonlyMap<string, unknown[] | null>;
      next: PlannedTask[];
      barriers: Record<string, string[]>;
      source: "input" | "loop" | "update";
      writes: Record<string, string[]>;
    },
    extraMetadata?: Record<string, unknown>,
  ): void {
    const stepNumber = state.stored || state.checkpoint.step > -2 ? state.checkpoint.step + 1 : -1;
    advance(state, {
      id: this.#spec.nextId(state.checkpoint.id),
      now: this.#spec.clock.now(),
      values: step.values,
      changed: step.changed,
      plan: step.next,
      barriers: step.barriers,
      metadata: this.#metadata(extraMetadata, step.source, stepNumber, step.writes),
      appendOnly: (channel) => this.#spec.schema[channel]?.appendOnly === true,
    });
    if (this.#sink?.modes.has("debug")) {
      this.#push(
        this.#debug({
          type: "checkpoint",
          step: stepNumber,
          checkpointId: state.checkpoint.id,
          next: step.next.map((p) => p.node),
        }),
      );
    }
  }

  /** A checkpoint's metadata: the run's, then `extra`, the trace parent, and the step's own keys. */
  #metadata(
    extra: Record<string, unknown> | undefined,
    source: "input" | "loop" | "update",
    step: number,
    writes: Record<string, string[]>,
  ): CheckpointMetadata {
    const given = this.#config.metadata;
    if (given === undefined && extra === undefined && this.#tracing === undefined) return { source, step, writes };
    return {
      ...given,
      ...extra,
      ...(this.#tracing ? { [TRACEPARENT_KEY]: this.#tracing.traceparent } : {}),
      source,
      step,
      writes,
    };
  }

  /** What routers receive besides the state: the run's signal and config (one object per run). */
  #routerContext(): RouterContext {
    this.#routerCtx ??= { signal: this.#controller.signal, config: this.#config };
    return this.#routerCtx;
  }

  /** Whether the head holds a pause its run had reached: an unanswered interrupt, or a breakpoint after the nodes that wrote it. */
  #reachedPause(state: ThreadState): boolean {
    if (pendingInterrupts(state.pending).length > 0) return true;
    const meta = state.checkpoint.metadata;
    const ran = meta.source === "loop" ? Object.keys(meta.writes ?? {}).map((node) => ({ node })) : [];
    return ran.length > 0 && this.#breaks(this.#spec.interruptAfter, this.#config.interruptAfter, ran);
  }

  /** Refuses the values of the next checkpoint when they are larger than the run allows, before it exists. */
  #checkSize(values: Readonly<Record<string, unknown>>, state: ThreadState): void {
    const limit = this.request.parent ? undefined : this.#config.maxStateBytes;
    if (limit === undefined) return;
    const bytes = Buffer.byteLength(JSON.stringify(values));
    if (bytes <= limit) return;
    const step = state.checkpoint.step + 1;
    throw new TrellisError(
      "PAYLOAD_TOO_LARGE",
      `Thread "${this.#threadId}" would grow to ${bytes} bytes of state at step ${step}, past this run's limit of ${limit} bytes; nothing of that step was written. Keep large data out of the state (store it elsewhere and keep a reference), or raise the limit.`,
      { details: { threadId: this.#threadId, bytes, limit, step } },
    );
  }

  #breaks(
    compiled: ReadonlySet<string> | "*",
    perRun: readonly string[] | "*" | undefined,
    plan: readonly PlannedTask[],
  ): boolean {
    if (compiled === "*" || perRun === "*") return true;
    if (compiled.size === 0 && !perRun?.length) return false;
    return plan.some((p) => compiled.has(p.node) || perRun?.includes(p.node));
  }

  #outcome(state: ThreadState, status: RunOutcome["status"]): RunOutcome {
    return {
      status,
      values: state.values,
      interrupts: status === "interrupted" ? pendingInterrupts(state.pending).map(({ taskId: _t, ...i }) => i) : [],
      next: state.checkpoint.next.map((p) => p.node),
      checkpointId: this.#saver ? state.checkpoint.id : undefined,
    };
  }

  /** recursionLimit bounds how deep a run goes; this bounds how wide one superstep may get. */
  #breadthError(plan: readonly PlannedTask[], superstep: number): GraphRecursionError {
    const byNode = new Map<string, number>();
    for (const p of plan) byNode.set(p.node, (byNode.get(p.node) ?? 0) + 1);
    const widest = [...byNode].sort((a, b) => b[1] - a[1]).slice(0, 3);
    return new GraphRecursionError(
      `Graph "${this.#spec.name}" planned ${plan.length} tasks for superstep ${superstep}, more than the ${MAX_TASKS_PER_STEP} one superstep may run: ${widest.map(([n, c]) => `"${n}" ×${c}`).join(", ")}. A Send fan-out that grows every step never ends; bound it.`,
      { tasks: plan.length, limit: MAX_TASKS_PER_STEP, looping: widest.map(([n]) => n) },
    );
  }

  #recursionError(counts: Map<string, number>): GraphRecursionError {
    const looping = [...counts].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1]);
    const names = looping.map(([node, n]) => `"${node}" (${n}×)`).join(", ");
    return new GraphRecursionError(
      `Graph "${this.#spec.name}" reached its recursion limit of ${this.#config.recursionLimit} supersteps without finishing. ${names ? `Nodes that kept running: ${names}. ` : ""}Check the condition that should end the loop, or raise recursionLimit in the run config.`,
      { limit: this.#config.recursionLimit, looping: looping.map(([node]) => node) },
    );
  }

  #emitValues(state: ThreadState): void {
    if (this.#sink?.modes.has("values")) this.#push({ mode: "values", namespace: this.#nsPath, data: state.values });
  }

  #emitStep(state: ThreadState, tasks: PlannedStepTask[], outcomes: TaskOutcome[]): void {
    const sink = this.#sink;
    if (!sink) return;
    if (sink.modes.has("updates")) {
      for (let i = 0; i < tasks.length; i++) {
        const outcome = outcomes[i] as Extract<TaskOutcome, { kind: "done" }>;
        const node = (tasks[i] as PlannedStepTask).planned.node;
        this.#push({ mode: "updates", namespace: this.#nsPath, data: { [node]: outcome.update } });
      }
    }
    this.#emitValues(state);
  }

  #debug(data: Extract<UnnumberedEvent, { mode: "debug" }>["data"]): UnnumberedEvent {
    return { mode: "debug", namespace: this.#nsPath, data };
  }

  #push(event: UnnumberedEvent): void {
    this.#sink?.push(event);
  }
}
