import { setMaxListeners } from "node:events";
import type { CheckpointMetadata, CheckpointSaver, Lease, PlannedTask } from "@trellis/checkpoint";
import { TrellisError } from "@trellis/checkpoint";
import { WRITE } from "../constants.js";
import type { GraphSpec } from "../graph/spec.js";
import { CheckpointWriter } from "./checkpoint-writer.js";
import type { NormalizedConfig } from "./config.js";
import type { LeaseKeeper } from "./lease-keeper.js";
import type { ChildRunEnv } from "./node-context.js";
import type { KnownPlain } from "./plain-check.js";
import type { RouterContext } from "./route.js";
import type { EventSink, UnnumberedEvent } from "./stream-events.js";
import type { TaskEnv } from "./task-runner.js";
import { advance, type ThreadState } from "./thread-state.js";
import { type RunTracing, TRACEPARENT_KEY } from "./tracing.js";

/** One run of a graph on one thread and namespace. @internal */
export interface LoopRequest {
  spec: GraphSpec;
  input: unknown;
  config: NormalizedConfig;
  sink: EventSink | undefined;
  /** Set when the run is a subgraph called from a running task. */
  parent?: { env: ChildRunEnv; namespace: string; resume: Readonly<Record<string, unknown>>; signal: AbortSignal };
}

/** What one superstep (or an input) moves the thread to, before the checkpoint is made. @internal */
export interface StepAdvance {
  values: Record<string, unknown>;
  changed: ReadonlyMap<string, unknown[] | null>;
  next: PlannedTask[];
  barriers: Record<string, string[]>;
  source: "input" | "loop" | "update";
  writes: Record<string, string[]>;
}

/**
 * What every phase of one run shares — the request, its saver and writer, its lease, its signal, its
 * tracing — and the steps every phase takes the same way: advancing the thread to a new checkpoint,
 * emitting stream events, checking a step's size. The phases themselves (`run-load`, `run-input`,
 * `superstep-loop`, `step-settle`, `run-outcome`) are functions of it. @internal
 */
export class RunContext {
  readonly spec: GraphSpec;
  readonly config: NormalizedConfig;
  readonly saver: CheckpointSaver | undefined;
  readonly threadId: string | undefined;
  readonly namespace: string;
  readonly nsPath: string[];
  readonly sink: EventSink | undefined;
  /**
   * The run's signal: its own controller's, or for a subgraph's run that was given no signal of its
   * own, its parent task's — which is all its own would follow (no controller, no listener per run).
   */
  readonly signal: AbortSignal;
  /** Undefined when the run uses its parent task's signal. */
  readonly #controller: AbortController | undefined;
  readonly writer: CheckpointWriter;
  /** Objects this run has found plain: a wide state passed along by reference is walked once. */
  readonly knownPlain: KnownPlain = new WeakMap();
  readonly parentLease: Lease | undefined;
  lease: LeaseKeeper | undefined;
  /** The run's spans; undefined unless a tracer provider records them. */
  tracing: RunTracing | undefined;
  #env: { state: ThreadState; env: TaskEnv } | undefined;
  #routerCtx: RouterContext | undefined;

  constructor(readonly request: LoopRequest) {
    const { spec, config, parent } = request;
    this.spec = spec;
    this.config = config;
    this.saver = parent ? (spec.checkpointer ?? parent.env.saver) : spec.checkpointer;
    this.threadId = parent ? parent.env.threadId : config.threadId;
    this.namespace = parent ? parent.namespace : "";
    this.nsPath = this.namespace === "" ? [] : this.namespace.split("|");
    this.sink = request.sink;
    this.parentLease = parent?.env.lease;
    this.#controller = parent && !config.signal ? undefined : new AbortController();
    this.signal = this.#controller ? this.#controller.signal : (parent as { signal: AbortSignal }).signal;
    // Every task of a step may listen to the run's signal at once (subgraph runs, node timeouts): a
    // fan-out of 100 is not a listener leak, so Node's warning past 10 listeners does not apply. A
    // parent task's signal is the parent run's, or its timeout's, which say the same.
    if (this.#controller) setMaxListeners(0, this.signal);
    this.writer = new CheckpointWriter(
      this.saver,
      config.durability,
      () => this.lease?.current ?? this.parentLease,
      spec.snapshotEvery,
      () => this.lease,
    );
  }

  /**
   * Signals which the run follows: the caller's and the parent task's, when the run has a controller
   * of its own (otherwise it uses the parent's signal itself).
   */
  followedSignals(): AbortSignal[] {
    if (!this.#controller) return [];
    const { config, parent } = this.request;
    return [config.signal, parent?.signal].filter((s): s is AbortSignal => !!s);
  }

  /** Stops the run with `reason` (a cancel, a lost lease); a run on its parent's signal follows the parent's. */
  abort(reason: unknown): void {
    this.#controller?.abort(reason);
  }

  /** What the run's tasks share; made again only when the lease the tasks pass on has changed. */
  taskEnv(state: ThreadState): TaskEnv {
    const lease = this.lease?.current ?? this.parentLease;
    const cached = this.#env;
    if (cached && cached.state === state && cached.env.child.lease === lease) return cached.env;
    const sink = this.sink;
    const nsPath = this.nsPath;
    const env: TaskEnv = {
      spec: this.spec,
      config: this.config,
      namespace: this.namespace,
      signal: this.signal,
      clock: this.spec.clock,
      sink,
      canInterrupt: this.saver !== undefined,
      child: {
        saver: this.saver,
        threadId: this.threadId,
        lease,
        sink,
        config: this.config,
        namespace: this.namespace,
      },
      recordStep: (taskId, key, value) => this.writer.writes(state, taskId, [[`${WRITE.stepPrefix}${key}`, value]]),
      emit(data) {
        if (sink?.modes.has("custom")) sink.push({ mode: "custom", namespace: [...nsPath], data });
      },
      knownPlain: this.knownPlain,
    };
    this.#env = { state, env };
    return env;
  }

  /** Moves the thread to a new checkpoint holding `step` (not stored yet: the writer does that). */
  advance(state: ThreadState, step: StepAdvance, extraMetadata?: Record<string, unknown>): void {
    const stepNumber = state.stored || state.checkpoint.step > -2 ? state.checkpoint.step + 1 : -1;
    advance(state, {
      id: this.spec.nextId(state.checkpoint.id),
      now: this.spec.clock.now(),
      values: step.values,
      changed: step.changed,
      plan: step.next,
      barriers: step.barriers,
      metadata: this.#metadata(extraMetadata, step.source, stepNumber, step.writes),
      appendOnly: (channel) => this.spec.schema[channel]?.appendOnly === true,
    });
    if (this.sink?.modes.has("debug")) {
      this.push(
        this.debug({
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
    const given = this.config.metadata;
    if (given === undefined && extra === undefined && this.tracing === undefined) return { source, step, writes };
    // The step's own keys first, overwritten by the spreads, then set again (they win): on V8 a literal
    // adding keys after a spread is slow
    const out: CheckpointMetadata = this.tracing
      ? { [TRACEPARENT_KEY]: "", source, step, writes, ...given, ...extra }
      : { source, step, writes, ...given, ...extra };
    if (this.tracing) out[TRACEPARENT_KEY] = this.tracing.traceparent;
    out.source = source;
    out.step = step;
    out.writes = writes;
    return out;
  }

  /** What routers receive besides the state: the run's signal and config (one object per run). */
  routerContext(): RouterContext {
    this.#routerCtx ??= { signal: this.signal, config: this.config };
    return this.#routerCtx;
  }

  /** Refuses the values of the next checkpoint when they are larger than the run allows, before it exists. */
  checkSize(values: Readonly<Record<string, unknown>>, state: ThreadState): void {
    const limit = this.request.parent ? undefined : this.config.maxStateBytes;
    if (limit === undefined) return;
    const bytes = Buffer.byteLength(JSON.stringify(values));
    if (bytes <= limit) return;
    const step = state.checkpoint.step + 1;
    throw new TrellisError(
      "PAYLOAD_TOO_LARGE",
      `Thread "${this.threadId}" would grow to ${bytes} bytes of state at step ${step}, past this run's limit of ${limit} bytes; nothing of that step was written. Keep large data out of the state (store it elsewhere and keep a reference), or raise the limit.`,
      { details: { threadId: this.threadId, bytes, limit, step } },
    );
  }

  emitValues(state: ThreadState): void {
    if (this.sink?.modes.has("values")) this.push({ mode: "values", namespace: this.nsPath, data: state.values });
  }

  debug(data: Extract<UnnumberedEvent, { mode: "debug" }>["data"]): UnnumberedEvent {
    return { mode: "debug", namespace: this.nsPath, data };
  }

  push(event: UnnumberedEvent): void {
    this.sink?.push(event);
  }
}
