import { type CheckpointSaver, type Store, TrellisError } from "@trellis/checkpoint";
import { applyWrites, initialValues } from "../runtime/apply.js";
import { GraphInterrupt, type Interrupt, ParentCommand } from "../runtime/command.js";
import { normalizeConfig, type RunConfig } from "../runtime/config.js";
import { childSink, eventStream, type RunEventStream } from "../runtime/event-stream.js";
import { type ForkOptions, forkThread } from "../runtime/fork.js";
import { currentScope, type TaskScope } from "../runtime/node-context.js";
import {
  breakpointOf,
  decidePausedInput,
  type PausedInputDecision,
  type PausedInputPolicy,
} from "../runtime/paused-input.js";
import { type RunOutcome, runLoop } from "../runtime/run-loop.js";
import { emptySnapshot, type StateSnapshot, snapshotOf } from "../runtime/state-snapshot.js";
import type { StreamEvent, StreamMode } from "../runtime/stream-events.js";
import { updateThreadState } from "../runtime/update-state.js";
import { validateUpdate } from "../runtime/validate-update.js";
import { checkAgainst, checkResumeAnswers, checkTypedKeys } from "../schema/check-state.js";
import { type GraphSchemas, graphSchemas } from "../schema/graph-schemas.js";
import { checkInputKeys, pickOutput } from "../schema/input-output-keys.js";
import type { StateOf, StateSchema, UpdateOf } from "../state.js";
import { drawingOf, type GraphDrawing, mermaidOf, type Xray } from "./draw.js";
import type { GraphInput, InvokeResult, RunResult, StreamOptions } from "./run-types.js";
import type { GraphSpec } from "./spec.js";

export type { GraphInput, InvokeResult, RunResult, StreamOptions } from "./run-types.js";

/**
 * A checked, runnable graph. Made by `StateGraph.compile()`; immutable and safe to share between
 * requests.
 *
 * @example
 * const result = await graph.invoke({ topic: "ladders" }, { threadId: "t1" });
 * if (result.__interrupt__) await graph.invoke(new Command({ resume: "ok" }), { threadId: "t1" });
 */
export class CompiledGraph<S extends StateSchema, I extends keyof S = keyof S, O extends keyof S = keyof S> {
  readonly #spec: GraphSpec;

  /** @internal */
  constructor(spec: GraphSpec) {
    this.#spec = spec;
  }

  /** The graph's name. */
  get name(): string {
    return this.#spec.name;
  }

  /** The checkpointer given at compile time. */
  get checkpointer(): CheckpointSaver | undefined {
    return this.#spec.checkpointer;
  }

  /**
   * The same graph with another checkpointer: how a server gives every graph it hosts its own store.
   *
   * @example
   * const served = graph.withCheckpointer(new SqliteSaver("./data.sqlite"));
   */
  withCheckpointer(checkpointer: CheckpointSaver | undefined): CompiledGraph<S, I, O> {
    return new CompiledGraph<S, I, O>({ ...this.#spec, checkpointer });
  }

  /**
   * The same graph with another long-term memory store (`ctx.store` of its nodes when the run config
   * gives none).
   *
   * @example
   * const served = graph.withStore(new SqliteStore({ filename: "./memory.db" }));
   */
  withStore(store: Store | undefined): CompiledGraph<S, I, O> {
    return new CompiledGraph<S, I, O>({ ...this.#spec, store });
  }

  /** What an input does when it arrives while the thread waits on an interrupt (see {@link PausedInputPolicy}). */
  get onInputWhilePaused(): PausedInputPolicy {
    return this.#spec.onInputWhilePaused;
  }

  /**
   * What this graph's {@link PausedInputPolicy} makes of `input` sent to a thread that stands as
   * `snapshot` says: start a new pass, answer the pending interrupt (`resume`), or continue past the
   * static breakpoint the thread stopped at (`continue`); throws `THREAD_PAUSED` under `reject`. The
   * rule the runtime applies when the run starts, for callers that accept input before running it.
   *
   * @example
   * const decision = graph.decideInput(await graph.getState({ threadId }), { messages: [msg] });
   */
  decideInput(
    snapshot: Pick<StateSnapshot<unknown>, "interrupts" | "next" | "metadata">,
    input: Record<string, unknown>,
    threadId?: string,
  ): PausedInputDecision {
    const breakpoint = breakpointOf(this.#spec, {
      next: snapshot.next,
      writers: Object.keys((snapshot.metadata?.writes as Record<string, unknown> | undefined) ?? {}),
      interrupts: snapshot.interrupts.length,
    });
    return decidePausedInput(this.#spec.onInputWhilePaused, snapshot.interrupts, input, threadId, breakpoint);
  }

  /**
   * Checks an input (or a `Command`'s `update`) against the graph's `validateState` as the runtime
   * will when the run starts, applied to `current` (the thread's values; the defaults for a new
   * thread): throws the validator's error, or the runtime's for keys the schema does not have. An
   * input (`from: "input"`, the default) may set only the graph's `input` keys; a `Command`'s update
   * (`from: "command"`) any key.
   *
   * @example
   * graph.checkInput((await graph.getState({ threadId })).values, { dry_run: "no" }); // throws INVALID_ARGUMENT
   */
  checkInput(current: Record<string, unknown> | undefined, input: unknown, from: "input" | "command" = "input"): void {
    const spec = this.#spec;
    const update = validateUpdate(spec.schema, "input", input) ?? {};
    if (from === "input") checkInputKeys(spec, update);
    if (!spec.validateState && spec.typedKeys.size === 0) return;
    const { values } = applyWrites(spec.schema, current ?? initialValues(spec.schema), [{ node: "input", update }]);
    checkTypedKeys(spec, values, Object.keys(update), "The run's input");
    spec.validateState?.(values);
  }

  /**
   * Checks resume answers (interrupt id → value, as {@link bindResume} binds them) against the
   * `resumeSchema` of the node each pending interrupt paused in, as the runtime will when the run
   * starts: throws `INVALID_RESUME` naming the node and interrupt.
   *
   * @example
   * const binding = bindResume(snapshot, resume);
   * if (binding.kind === "interrupts") graph.checkResume(snapshot.interrupts, binding.resume);
   */
  checkResume(pending: readonly Interrupt[], answers: Readonly<Record<string, unknown>>): void {
    checkResumeAnswers(this.#spec, pending, answers);
  }

  /**
   * Checks a run's `configurable` and `context` against the graph's `configSchema` / `contextSchema`
   * (when declared): throws `INVALID_CONFIG` naming the key.
   *
   * @example
   * graph.checkConfig({ configurable: { model: "gpt-4o" }, context: { userId: "u1" } });
   */
  checkConfig(run: { configurable?: unknown; context?: unknown }): void {
    checkAgainst(this.#spec.configSchema, run.configurable, "configurable");
    if (run.context !== undefined && run.context !== null)
      checkAgainst(this.#spec.contextSchema, run.context, "context");
  }

  /**
   * The graph's JSON Schemas, built from its channels' schemas (a key without one is `{}`) and its
   * `configSchema` / `contextSchema`: what a client needs to build an input form.
   *
   * @example
   * const { input } = graph.getSchemas();
   * input.properties.revision_count; // { type: "integer", minimum: 0, default: 0 }
   */
  getSchemas(): GraphSchemas {
    return graphSchemas(this.#spec);
  }

  /**
   * The part of a state a run returns: its `output` keys (LangGraph's output schema), or every key
   * when the graph declares none. What `invoke` and a server's `runs/wait` answer with.
   *
   * @example
   * graph.outputOf((await graph.getState({ threadId })).values); // { draft: "…" }
   */
  outputOf(values: Record<string, unknown>): Record<string, unknown> {
    return pickOutput(this.#spec, values);
  }

  /** The state keys a run's input may set (the graph's `input` option; every key when it has none). */
  get inputKeys(): readonly string[] {
    return this.#spec.inputKeys ?? this.#spec.channelNames;
  }

  /** The state keys of the graph's schema. */
  get schemaKeys(): readonly string[] {
    return this.#spec.channelNames;
  }

  /** @internal */
  get spec(): GraphSpec {
    return this.#spec;
  }

  /**
   * Runs the graph until it ends or pauses and returns the state. When it paused on `interrupt()`, the
   * result has `__interrupt__`: the pending interrupts. Throws the node's error when a node fails.
   * Called from inside a running node without a `threadId`, it runs as that node's subgraph.
   */
  async invoke(input: GraphInput<S, I>, config?: RunConfig): Promise<InvokeResult<S, O>> {
    const scope = currentScope();
    if (scope && config?.threadId === undefined && config?.configurable?.thread_id === undefined) {
      return (await this.#invokeNested(input, config, scope)) as InvokeResult<S, O>;
    }
    const outcome = await runLoop({ spec: this.#spec, input, config: normalizeConfig(config), sink: undefined });
    return toInvokeResult(this.#spec, outcome) as InvokeResult<S, O>;
  }

  /**
   * Like `invoke`, but never throws for what happens inside the graph: the end of the run is data.
   *
   * @example
   * const r = await graph.run(input, { threadId });
   * if (r.status === "interrupted") ask(r.interrupts[0]);
   */
  async run(input: GraphInput<S, I>, config?: RunConfig): Promise<RunResult<S, O>> {
    try {
      const outcome = await runLoop({ spec: this.#spec, input, config: normalizeConfig(config), sink: undefined });
      const values = pickOutput(this.#spec, outcome.values) as Pick<StateOf<S>, O>;
      return outcome.status === "done"
        ? { status: "done", values, checkpointId: outcome.checkpointId }
        : {
            status: "interrupted",
            values,
            interrupts: outcome.interrupts,
            next: outcome.next,
            checkpointId: outcome.checkpointId,
          };
    } catch (error) {
      return { status: "error", error };
    }
  }

  /**
   * Runs the graph and yields its progress in LangGraph's shapes: with one mode, the chunks; with a list
   * of modes, `[mode, chunk]`; with `subgraphs: true`, `[namespace, chunk]` or `[namespace, mode, chunk]`.
   *
   * @example
   * for await (const [mode, chunk] of graph.stream(input, { threadId, streamMode: ["updates", "messages"] })) …
   */
  stream(input: GraphInput<S, I>, config: RunConfig & StreamOptions = {}): AsyncIterableIterator<unknown> {
    const events = this.streamEvents(input, config);
    const many = Array.isArray(config.streamMode);
    const subgraphs = config.subgraphs === true;
    const shape = (e: StreamEvent): unknown => {
      const chunk = e.mode === "values" && e.data === undefined ? {} : e.data;
      if (subgraphs) return many ? [e.namespace, e.mode, chunk] : [e.namespace, chunk];
      return many ? [e.mode, chunk] : chunk;
    };
    const iterator: AsyncIterableIterator<unknown> = {
      async next() {
        const r = await events.next();
        return r.done ? r : { value: shape(r.value), done: false };
      },
      async return() {
        await events.return?.();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /**
   * Runs the graph and yields every event as a numbered, typed object (`seq`, `mode`, `namespace`,
   * `data`): what servers forward over SSE. Once drained, `outcome` says how the run ended.
   *
   * @example
   * const events = graph.streamEvents(input, { threadId, streamMode: ["updates"] });
   * for await (const e of events) sse.send(e.seq, e);
   * if ((await events.outcome).status === "interrupted") notifyReviewer();
   */
  streamEvents(input: GraphInput<S, I>, config: RunConfig & StreamOptions = {}): RunEventStream {
    const { streamMode, subgraphs, ...runConfig } = config;
    const modes = new Set<StreamMode>(
      streamMode === undefined ? ["values"] : Array.isArray(streamMode) ? streamMode : [streamMode as StreamMode],
    );
    const normalized = normalizeConfig(runConfig);
    return eventStream(modes, subgraphs === true, (sink, signal) => {
      const userSignal = normalized.signal;
      const combined = userSignal ? AbortSignal.any([userSignal, signal]) : signal;
      const config = { signal: combined, ...normalized }; // the key first, then set: see normalizeConfig
      config.signal = combined;
      return runLoop({ spec: this.#spec, input, config, sink });
    });
  }

  /**
   * The thread's state at its latest checkpoint (or `config.checkpointId`). With `{ subgraphs: true }`,
   * tasks that run subgraphs carry the subgraph's state.
   */
  async getState(config: RunConfig, options: { subgraphs?: boolean } = {}): Promise<StateSnapshot<StateOf<S>>> {
    const { saver, threadId, normalized } = this.#threadConfig(config, "getState");
    const tuple = await saver.get({
      threadId,
      ...(normalized.checkpointId !== undefined ? { checkpointId: normalized.checkpointId } : {}),
    });
    if (!tuple) return emptySnapshot(initialValues(this.#spec.schema), threadId) as StateSnapshot<StateOf<S>>;
    return (await snapshotOf(this.#spec, saver, tuple, options.subgraphs === true)) as StateSnapshot<StateOf<S>>;
  }

  /**
   * The thread's checkpoints, newest first.
   *
   * @example
   * for await (const s of graph.getStateHistory({ threadId }, { limit: 10 })) console.log(s.metadata?.step, s.next);
   */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number; before?: string; filter?: Record<string, unknown> } = {},
  ): AsyncIterableIterator<StateSnapshot<StateOf<S>>> {
    const { saver, threadId } = this.#threadConfig(config, "getStateHistory");
    for await (const tuple of saver.list(threadId, { ...options, namespace: "" })) {
      yield (await snapshotOf(this.#spec, saver, tuple, false)) as StateSnapshot<StateOf<S>>;
    }
  }

  /**
   * Changes a thread's state as if `asNode` had returned `values` (default: the node that wrote last),
   * and routes from that node. Returns the config of the new checkpoint.
   *
   * @example
   * await graph.updateState({ threadId }, { reviewStatus: "approved" });
   * await graph.invoke(null, { threadId }); // continue
   */
  async updateState(
    config: RunConfig,
    values: UpdateOf<S>,
    asNode?: string,
  ): Promise<{ threadId: string; checkpointId: string }> {
    const { saver, threadId, normalized } = this.#threadConfig(config, "updateState");
    return updateThreadState(this.#spec, saver, { ...normalized, threadId }, values, asNode);
  }

  /**
   * Makes a copy of an earlier checkpoint the thread's head, as a new checkpoint after the current one
   * (`source: "fork"`): the same values and next tasks, and the same pending interrupts under the same
   * ids. `keepWrites` keeps only the first n of its pending writes — how a server undoes a run: fork
   * from where the run started, keeping the writes that were there before it. Returns the new
   * checkpoint's config.
   *
   * @example
   * const { checkpointId } = await graph.fork({ threadId }, { from: before.checkpointId });
   * await graph.invoke(null, { threadId }); // continue from the copy
   */
  async fork(config: RunConfig, options: ForkOptions): Promise<{ threadId: string; checkpointId: string }> {
    const { saver, threadId, normalized } = this.#threadConfig(config, "fork");
    return forkThread(this.#spec, saver, { threadId, runId: normalized.runId }, options);
  }

  /**
   * The compiled graphs used as nodes of this one, keyed by their namespace (the node's name; nested
   * ones `parent|child` with `recurse`), each with its name, state keys and JSON Schemas.
   *
   * @example
   * Object.keys(tutor.getSubgraphs()); // ["test_session"]
   */
  getSubgraphs(
    options: { recurse?: boolean } = {},
  ): Record<string, { name: string; schemaKeys: readonly string[]; schemas: GraphSchemas }> {
    const out: Record<string, { name: string; schemaKeys: readonly string[]; schemas: GraphSchemas }> = {};
    const visit = (spec: GraphSpec, prefix: string) => {
      for (const node of spec.nodes.values()) {
        if (!node.subgraph) continue;
        const namespace = prefix ? `${prefix}|${node.name}` : node.name;
        out[namespace] = {
          name: node.subgraph.spec.name,
          schemaKeys: node.subgraph.schemaKeys,
          schemas: graphSchemas(node.subgraph.spec),
        };
        if (options.recurse) visit(node.subgraph.spec, namespace);
      }
    };
    visit(this.#spec, "");
    return out;
  }

  /**
   * The graph's nodes and edges as data. With `xray`, subgraph nodes are expanded into their own nodes,
   * named `parent:child`, as LangGraph's `getGraph({ xray })` draws them: `true` every level, a number
   * that many levels.
   *
   * @example
   * graph.getGraph({ xray: true }).nodes.map((n) => n.id); // ["__start__", "plan", "review:check", …]
   */
  getGraph(options: { xray?: Xray } = {}): GraphDrawing {
    return drawingOf(this.#spec, options.xray);
  }

  /**
   * The graph as a Mermaid flowchart (with `xray`, subgraphs expanded as in {@link getGraph}).
   *
   * @example
   * console.log(graph.drawMermaid()); // graph TD …
   */
  drawMermaid(options: { xray?: Xray } = {}): string {
    return mermaidOf(drawingOf(this.#spec, options.xray));
  }

  async #invokeNested(
    input: unknown,
    config: RunConfig | undefined,
    scope: TaskScope,
  ): Promise<Record<string, unknown>> {
    const n = scope.counters.children++;
    const segment = `${scope.ctx.node}:${scope.ctx.taskId}${n > 0 ? `:${n + 1}` : ""}`;
    const namespace = scope.child.namespace ? `${scope.child.namespace}|${segment}` : segment;
    const parent = scope.child.config;
    // A subgraph serves the same thread and caller as its parent: nodes inside it see the parent's
    // thread id, configurable values, metadata and run id.
    const inherited: RunConfig = {};
    if (parent.threadId !== undefined) inherited.threadId = parent.threadId;
    if (parent.configurable !== undefined) inherited.configurable = parent.configurable;
    if (parent.metadata !== undefined) inherited.metadata = parent.metadata;
    if (parent.runId !== undefined) inherited.runId = parent.runId;
    if (parent.recursionLimit !== undefined) inherited.recursionLimit = parent.recursionLimit;
    if (parent.user !== undefined) inherited.user = parent.user;
    // the parent node's store (its run config's, else its graph's) reaches the subgraph's nodes
    if (scope.ctx.store !== undefined) inherited.store = scope.ctx.store;
    const merged: RunConfig = { durability: "sync", ...inherited, ...config }; // see normalizeConfig
    merged.durability = parent.durability ?? "sync";
    const normalized = normalizeConfig(merged);
    try {
      const outcome = await runLoop({
        spec: this.#spec,
        input,
        config: normalized,
        sink: childSink(scope.child.sink),
        parent: { env: scope.child, namespace, resume: scope.resume, signal: scope.ctx.signal },
      });
      if (outcome.status === "interrupted") throw new GraphInterrupt(outcome.interrupts);
      return pickOutput(this.#spec, outcome.values);
    } catch (error) {
      if (error instanceof ParentCommand && !error.arrived) throw new ParentCommand(error.command, true);
      throw error;
    }
  }

  #threadConfig(config: RunConfig, what: string) {
    const normalized = normalizeConfig(config);
    const saver = this.#spec.checkpointer;
    if (!saver) {
      throw new TrellisError(
        "CHECKPOINTER_REQUIRED",
        `${what} needs a checkpointer: compile graph "${this.#spec.name}" with { checkpointer }.`,
      );
    }
    if (normalized.threadId === undefined) {
      throw new TrellisError("THREAD_REQUIRED", `${what} needs a thread: pass { threadId } in the config.`);
    }
    return { saver, threadId: normalized.threadId, normalized };
  }
}

function toInvokeResult(spec: GraphSpec, outcome: RunOutcome): Record<string, unknown> {
  // The run's own values are read-only; the caller gets an object of its own, with only the graph's
  // output keys (as LangGraph returns).
  const values = pickOutput(spec, outcome.values);
  if (outcome.status === "interrupted" && outcome.interrupts.length > 0) values.__interrupt__ = outcome.interrupts;
  return values;
}
