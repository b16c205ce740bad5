import { type CheckpointSaver, type CheckpointTuple, type Store, TrellisError } from "@trellis/checkpoint";
import {
  Command,
  type GraphInput,
  type ModelPrices,
  type RunConfig,
  type RunOutcome,
  Send,
  type StreamMode,
  type StreamOptions,
  UsageTally,
  withUsageTally,
} from "@trellis/core";
import type { AssistantRegistry } from "../assistants/assistant-registry.js";
import type { AnyGraph, HostedGraph } from "../assistants/graph-registry.js";
import {
  isAttemptLost,
  type NewEvent,
  type RunError,
  type RunRecord,
  type RunStatus,
  type RunStore,
  type ThreadStatus,
} from "../stores/run-store.js";
import { storeFor } from "../stores/user-store.js";
import { interruptJson } from "../streams/api-shapes.js";
import type { EventHub } from "../streams/event-hub.js";
import { ApiEvents, coreModes } from "../streams/stream-format.js";
import { wireValue } from "../streams/wire-values.js";
import { fencedSaver } from "./fenced-saver.js";
import { rollbackRun } from "./rollback.js";
import { identityConfigurable, runUser } from "./run-identity.js";
import { RunTimeline } from "./run-timeline.js";
import { addRunUsage } from "./run-usage.js";

/** Why a run was stopped from outside. `lost`: another attempt may own the run now. */
export type RunStop = "drain" | "cancel" | "rollback" | "timeout" | "shutdown" | "lost";

/** What {@link executeRun} needs. @internal */
export interface ExecuteContext {
  store: RunStore;
  hub: EventHub;
  saver: CheckpointSaver;
  graphs: ReadonlyMap<string, HostedGraph>;
  /** Where the run's assistant is looked up (the shared store in scale-out). */
  assistants?: Pick<AssistantRegistry, "resolve">;
  /** The long-term memory store: the run's `ctx.store`, as its owner sees it through the Store API. */
  itemStore?: Store;
  limits: { stateBytes: number; runTimeMs: number };
  signal: AbortSignal;
  drainSignal: AbortSignal;
  stopReason(): RunStop | undefined;
  setStop(reason: RunStop): void;
  /** Throws LEASE_LOST when this attempt may no longer write; checked before every checkpoint write. */
  fence(): void;
  /** Reports that a write of this attempt was refused as stale: the attempt is aborted. */
  lost(why: string): void;
  /**
   * TTL of the thread's checkpoint lease while this attempt runs (scale-out: `orphanAfterMs`), renewed
   * every third of it: a stalled worker's lease has run out by the time its run is requeued, so the
   * next attempt takes the thread over at once. Default: the graph's own.
   */
  leaseTtlMs?: number;
  /** US dollars per million tokens per model: the run's `metadata.usage.cost_usd`. */
  prices?: ModelPrices | undefined;
  /** Test hook: named points of the attempt (`before-finish:<status>`). */
  point?(name: string): Promise<void>;
}

/** How an attempt ended for the worker that ran it. @internal */
export type ExecuteOutcome =
  /** The run's final status is stored (with its thread's status, in one transaction). */
  | { kind: "finished"; status: RunStatus; error?: RunRecord["error"] }
  /** Handed back to the queue (shutdown): the next attempt continues from the last checkpoint. */
  | { kind: "released" }
  /** Another attempt owns the run (or may): this one wrote nothing more. */
  | { kind: "lost"; reason: string };

type Finish = (
  status: RunStatus,
  error: RunRecord["error"],
  threadStatus: ThreadStatus,
  last: NewEvent[],
) => Promise<ExecuteOutcome>;

/**
 * Executes one claimed attempt of a run to its end: records where the thread stood, streams the graph
 * (its checkpoints through a saver fenced by the attempt), stores and publishes its events in batches,
 * and stores the run's final status together with its thread's. Every store write names the attempt
 * and is refused once another attempt owns the run; a refusal stops the attempt.
 * @internal
 */
export async function executeRun(run: RunRecord, ctx: ExecuteContext): Promise<ExecuteOutcome> {
  const events = new EventWriter(run, ctx);
  const timeline = new RunTimeline();
  // the tally hears each model and tool call too: the timeline nests them under their tasks
  const tally = new UsageTally({ onCall: (call) => timeline.call(call) });
  const finish: Finish = async (status, error, threadStatus, last) => {
    await ctx.point?.(`before-finish:${status}`);
    // the run's usage and timeline are stored with its end: no write of their own
    const timed = timeline.addTo(run);
    const used = addRunUsage(run, tally, ctx.prices) !== undefined;
    const seqs = await ctx.store.finishRun(run.runId, run.attempt, {
      status,
      error,
      threadStatus,
      events: last,
      // a run refused before it wrote anything leaves the thread's pause as it was: no change recorded
      stateChanged: !(error && REFUSALS.has(error.error)),
      ...(timed || used ? { metadata: run.metadata } : {}),
    });
    events.publish(last, seqs);
    return error ? { kind: "finished", status, error } : { kind: "finished", status };
  };
  try {
    const hosted = ctx.graphs.get(graphIdOf(run));
    if (!hosted) {
      const error: RunError = { error: "NOT_FOUND", message: `Assistant "${run.assistantId}" is not served here.` };
      return await finish("error", error, "error", [{ event: "error", data: error }]);
    }
    if (ctx.assistants && !(await ctx.assistants.resolve(run.assistantId))) {
      // LangGraph drops an assistant's runs with it: a queued one fails without touching the thread
      const message = `Assistant "${run.assistantId}" was deleted after the run was queued.`;
      const error: RunError = { error: "NOT_FOUND", message };
      const state = await hosted.graph.getState({ threadId: run.threadId }).catch(() => undefined);
      const threadStatus = (state?.next.length ?? 0) > 0 ? "interrupted" : "idle";
      return await finish("error", error, threadStatus, [{ event: "error", data: error }]);
    }
    // a stateless run's thread is deleted after its answer: its checkpoints are synced with that answer;
    // any run's quick puts (its input) are the store's quick commits too, so the next answer syncs them
    const commitQuickly = ctx.store.commitQuickly?.bind(ctx.store);
    const quickly = run.kwargs.temporaryThread ? commitQuickly : undefined;
    const saver = fencedSaver(ctx.saver, { ...ctx, quickly, quickPuts: commitQuickly });
    const graph = hosted.graph.withCheckpointer(saver);
    const head = await saver.get({ threadId: run.threadId });
    const first = { event: "metadata", data: { run_id: run.runId, thread_id: run.threadId, attempt: run.attempt } };
    // the pre-run head is kept from the first attempt that recorded it (the store ignores later ones)
    const begun = await ctx.store.beginAttempt(run.runId, run.attempt, {
      preCheckpointId: head?.checkpoint.id ?? null,
      preWriteCount: head?.pendingWrites.length ?? 0,
      graphId: hosted.assistantId,
      events: [first],
    });
    run.preCheckpointId = begun.preCheckpointId;
    run.preWriteCount = begun.preWriteCount;
    events.publish([first], begun.seqs);
    // the attempt's model calls are counted, whether the run ends well or not
    return await withUsageTally(tally, () => stream(run, ctx, graph, saver, head, events, timeline, finish));
  } catch (error) {
    if (isAttemptLost(error) || ctx.stopReason() === "lost") {
      return { kind: "lost", reason: (error as Error)?.message ?? String(error) };
    }
    throw error;
  }
}

async function stream(
  run: RunRecord,
  ctx: ExecuteContext,
  graph: AnyGraph,
  saver: CheckpointSaver,
  head: CheckpointTuple | undefined,
  events: EventWriter,
  timeline: RunTimeline,
  finish: Finish,
): Promise<ExecuteOutcome> {
  const timer = setTimeout(() => ctx.setStop("timeout"), ctx.limits.runTimeMs);
  timer.unref?.();
  const wanted = new Set(coreModes(run.kwargs.streamMode));
  try {
    const { input, original, recover } = await inputFor(run, graph, head);
    const config = runConfig(run, ctx, original, recover);
    let outcome: RunOutcome | undefined;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1_000)) {
      try {
        // debug: the tasks' starts and results for the run's timeline (three small events per task and step)
        const stream = graph.streamEvents(input as GraphInput<never>, {
          streamMode: [...new Set<StreamMode>(["values", "debug", ...wanted])],
          ...config,
        });
        const api = new ApiEvents(run.kwargs.streamMode, run.threadId);
        for await (const e of stream) {
          timeline.see(e);
          for (const [name, data] of api.of(e)) events.push(name, data);
        }
        for (const [name, data] of api.flush()) events.push(name, data);
        // how the run ended comes with the stream: no read of the thread to learn it
        outcome = await stream.outcome;
        break;
      } catch (error) {
        // the thread's lease is held (a previous attempt's, until it expires or its holder is found
        // dead; an updateState): nothing was written yet, so wait for it rather than fail the run
        if (!(error instanceof TrellisError && error.code === "THREAD_BUSY") || ctx.signal.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (ctx.signal.aborted) throw error;
      }
    }
    await events.drain();
    const state = outcome as RunOutcome;
    const paused = state.next.length > 0;
    // drained for a shutdown: back to the queue, the next attempt continues where this one stopped
    if (paused && ctx.stopReason() === "shutdown") return await release(run, ctx);
    const last: NewEvent[] = [];
    if (paused && wanted.has("values") && state.interrupts.length > 0) {
      last.push({
        event: "values",
        data: { ...wireValue(state.values), __interrupt__: state.interrupts.map(interruptJson) },
      });
    }
    // as LangGraph reports it: a run that reached a pause (an interrupt, a breakpoint) succeeded, the
    // pause is the thread's status; a run drained for a newer one (multitask `interrupt`) was stopped
    const drained = paused && ctx.stopReason() === "drain";
    return await finish(drained ? "interrupted" : "success", null, paused ? "interrupted" : "idle", last);
  } catch (error) {
    return await stopped(run, ctx, error, events, graph, saver, finish);
  } finally {
    clearTimeout(timer);
  }
}

async function release(run: RunRecord, ctx: ExecuteContext): Promise<ExecuteOutcome> {
  return (await ctx.store.releaseRun(run.runId, run.attempt))
    ? { kind: "released" }
    : { kind: "lost", reason: "the run was no longer this attempt's when it was handed back" };
}

async function stopped(
  run: RunRecord,
  ctx: ExecuteContext,
  error: unknown,
  events: EventWriter,
  graph: AnyGraph,
  saver: CheckpointSaver,
  finish: Finish,
): Promise<ExecuteOutcome> {
  const lost = (why: unknown): ExecuteOutcome => ({ kind: "lost", reason: (why as Error)?.message ?? String(why) });
  const reason = ctx.signal.aborted ? ctx.stopReason() : undefined;
  if (reason === "lost" || isAttemptLost(error)) return lost(events.lostError ?? error);
  await events.drain().catch(() => undefined);
  if (events.lostError) return lost(events.lostError);
  if (reason === "shutdown") return release(run, ctx);
  if (reason === "rollback") {
    await rollbackRun(graph, saver, run); // through the attempt's fenced saver
    const e: RunError = { error: "RUN_ROLLED_BACK", message: "The run was cancelled and its progress undone." };
    return finish("interrupted", { error: "RUN_ROLLED_BACK", message: "Rolled back." }, "idle", [
      { event: "error", data: e },
    ]);
  }
  if (reason === "cancel") return finish("interrupted", null, "interrupted", []);
  if (reason === "timeout") {
    const e: RunError = {
      error: "RUN_TIMEOUT",
      message: `The run exceeded its time limit of ${ctx.limits.runTimeMs} ms.`,
    };
    return finish("timeout", e, "error", [{ event: "error", data: e }]);
  }
  // every code a run reports is one of Trellis's: a node's own error is INTERNAL, its class named in details
  const e: RunError =
    error instanceof TrellisError
      ? {
          error: error.code,
          message: error.message,
          ...(error.details !== undefined ? { details: error.details } : {}),
        }
      : {
          error: "INTERNAL",
          message: (error as Error)?.message ?? String(error),
          details: { name: (error as Error)?.name ?? "Error" },
        };
  return finish("error", e, await threadStatusAfter(run, ctx, error), [{ event: "error", data: e }]);
}

/** The graph a run runs: recorded when it was accepted; runs queued before assistants were data name it by assistant id. */
function graphIdOf(run: RunRecord): string {
  return run.kwargs.graphId ?? run.assistantId;
}

/** Errors that refuse a run before it writes anything: the thread stays as it was. */
const REFUSALS = new Set(["RESUME_MISMATCH", "AMBIGUOUS_RESUME", "NOTHING_TO_RESUME", "THREAD_PAUSED"]);

/** The thread's status after a failed run: `error`, unless the run was refused and changed nothing. */
async function threadStatusAfter(run: RunRecord, ctx: ExecuteContext, error: unknown): Promise<ThreadStatus> {
  const hosted = ctx.graphs.get(graphIdOf(run));
  if (!(error instanceof TrellisError && REFUSALS.has(error.code)) || !hosted) return "error";
  const state = await hosted.graph.getState({ threadId: run.threadId }).catch(() => undefined);
  if (!state?.checkpointId) return "idle";
  return state.next.length > 0 ? "interrupted" : "idle";
}

/**
 * Stores a run's events in batches — whatever arrived while the previous batch was being written goes
 * in the next one, so a fast superstep costs one round trip, not one per event — and publishes each
 * after it is stored. A refused batch (the attempt is stale) stops the attempt and drops the rest.
 */
class EventWriter {
  readonly #run: RunRecord;
  readonly #ctx: ExecuteContext;
  #queue: NewEvent[] = [];
  #flushing: Promise<void> | undefined;
  #error: unknown;
  /** The refusal that showed this attempt stale, if one did. */
  lostError: unknown;

  constructor(run: RunRecord, ctx: ExecuteContext) {
    this.#run = run;
    this.#ctx = ctx;
  }

  push(event: string, data: unknown): void {
    if (this.#error !== undefined) return;
    this.#queue.push({ event, data });
    this.#flushing ??= this.#flush();
  }

  async #flush(): Promise<void> {
    // the events of one step arrive over several turns of the stream: one write for all of them
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.#queue.length > 0 && this.#error === undefined) {
        const batch = this.#queue.splice(0);
        try {
          this.publish(batch, await this.#ctx.store.appendEvents(this.#run.runId, this.#run.attempt, batch));
        } catch (error) {
          this.#error = error;
          this.#queue = [];
          if (isAttemptLost(error)) {
            this.lostError = error;
            this.#ctx.lost((error as Error).message);
          } else this.#ctx.setStop("cancel");
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  publish(batch: NewEvent[], seqs: number[]): void {
    batch.forEach((e, i) => {
      this.#ctx.hub.publish(this.#run.runId, { seq: seqs[i] as number, event: e.event, data: e.data });
    });
  }

  /** Waits until every event pushed so far is stored; throws what refused one. */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#error !== undefined) throw this.#error;
  }
}

/**
 * The input of a run's attempt. A first attempt gets the request's input or command. A later attempt
 * (its worker died or was fenced mid-run) continues from the last checkpoint when the run had already
 * applied its input there, so nothing is applied twice and finished tasks do not run again; it
 * `recover`s: a pause the run had reached (a breakpoint, an interrupt) is kept, not run past.
 */
async function inputFor(
  run: RunRecord,
  graph: AnyGraph,
  head: CheckpointTuple | undefined,
): Promise<{ input: unknown; original: boolean; recover: boolean }> {
  const original = { input: requestInput(run), original: true, recover: false };
  if (run.attempt <= 1 || !head) return original;
  if (head.checkpoint.metadata.run_id === run.runId) return { input: null, original: false, recover: true };
  if (run.kwargs.command?.resume !== undefined) {
    const state = await graph.getState({ threadId: run.threadId });
    // the resume was recorded before the crash: its interrupt is answered, the task waits to re-run
    if (state.interrupts.length === 0 && state.next.length > 0) return { input: null, original: false, recover: false };
  }
  return original;
}

function requestInput(run: RunRecord): unknown {
  const command = run.kwargs.command;
  if (!command) return run.kwargs.input ?? null;
  const goto = command.goto === undefined || command.goto === null ? undefined : toGoto(command.goto);
  return new Command({
    ...(command.resume !== undefined ? { resume: command.resume } : {}),
    ...(command.update !== undefined && command.update !== null ? { update: toUpdate(command.update) } : {}),
    ...(goto !== undefined ? { goto } : {}),
  });
}

function toUpdate(update: unknown): Record<string, unknown> {
  return Array.isArray(update)
    ? Object.fromEntries(update as [string, unknown][])
    : (update as Record<string, unknown>);
}

function toGoto(goto: unknown): string | Send | Array<string | Send> {
  const one = (g: unknown): string | Send =>
    typeof g === "string" ? g : new Send((g as { node: string }).node, (g as { input?: unknown }).input ?? null);
  return Array.isArray(goto) ? goto.map(one) : one(goto);
}

function runConfig(
  run: RunRecord,
  ctx: ExecuteContext,
  original: boolean,
  recover: boolean,
): RunConfig & StreamOptions {
  const k = run.kwargs;
  const config: RunConfig & StreamOptions = {
    threadId: run.threadId,
    runId: run.runId,
    metadata: runMetadata(run),
    signal: ctx.signal,
    drainSignal: ctx.drainSignal,
    subgraphs: k.streamSubgraphs,
  };
  const { checkpoint_id: _c, thread_id: _t, ...rest } = k.config.configurable ?? {};
  // who the run acts for, written by the server over anything stored: ctx.user, and LangGraph's keys
  config.user = runUser(run.owner);
  config.configurable = { ...rest, ...identityConfigurable(run.owner) };
  if (k.config.recursion_limit !== undefined) config.recursionLimit = k.config.recursion_limit;
  if (k.interruptBefore) config.interruptBefore = k.interruptBefore;
  if (k.interruptAfter) config.interruptAfter = k.interruptAfter;
  if (k.durability) config.durability = k.durability;
  if (k.checkpointId && original) config.checkpointId = k.checkpointId;
  // a resume answers the pause pending when its request arrived (set by the run service), or fails
  if (k.expectedCheckpointId && original) config.expectedCheckpointId = k.expectedCheckpointId;
  // the runtime refuses a step whose state would pass the limit before writing any of it
  config.maxStateBytes = ctx.limits.stateBytes;
  if (recover) config.recover = true;
  // the trace of the request that created the run; none: a trace of its own, whatever context claimed it
  config.traceContext = k.traceContext ?? {};
  // each attempt its own holder of the thread's lease: a newer attempt fences a stale one's writes
  config.leaseOwner = `${run.runId}:${run.attempt}`;
  // the graph's nodes see the store as the run's owner sees it over the Store API (all of it, auth off)
  if (ctx.itemStore) config.store = storeFor(ctx.itemStore, run.owner);
  return config;
}

/**
 * The run's metadata with its ids (they win). The ids come first and are set again: a literal adding
 * keys after a spread makes a new hidden class per run on V8 (and `run.metadata` is parsed input, so it
 * is not copied with `Object.assign`, which would run a `__proto__` key's setter).
 */
function runMetadata(run: RunRecord): Record<string, unknown> {
  const metadata = { run_id: run.runId, assistant_id: run.assistantId, ...run.metadata };
  metadata.run_id = run.runId;
  metadata.assistant_id = run.assistantId;
  return metadata;
}
