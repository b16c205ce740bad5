import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { Command, type GraphInput, type RunConfig, Send, type StreamMode, type StreamOptions } from "@trellis/core";
import type { EventHub } from "./event-hub.js";
import type { AnyGraph, HostedGraph } from "./graph-registry.js";
import { rollbackRun } from "./rollback.js";
import type { RunRecord, RunStatus, RunStore, ThreadStatus } from "./run-store.js";
import { coreModes, sseData, sseEventName } from "./stream-format.js";

/** Why a run was stopped from outside. */
export type RunStop = "drain" | "cancel" | "rollback" | "timeout" | "shutdown" | "state-too-large";

/** What {@link executeRun} needs. @internal */
export interface ExecuteContext {
  store: RunStore;
  hub: EventHub;
  saver: CheckpointSaver;
  graphs: ReadonlyMap<string, HostedGraph>;
  limits: { stateBytes: number; runTimeMs: number };
  signal: AbortSignal;
  drainSignal: AbortSignal;
  stopReason(): RunStop | undefined;
  setStop(reason: RunStop): void;
}

/**
 * Executes one claimed run to its end: records where the thread stood, streams the graph, stores and
 * publishes each event, and records the run's final status. Returns the thread's status after it, or
 * undefined when the run was handed back to the queue (shutdown).
 * @internal
 */
export async function executeRun(run: RunRecord, ctx: ExecuteContext): Promise<ThreadStatus | undefined> {
  const emit = async (event: string, data: unknown) => {
    const seq = await ctx.store.appendEvent(run.runId, event, data);
    ctx.hub.publish(run.runId, { seq, event, data });
  };
  const finish = async (status: RunStatus, error: RunRecord["error"] = null) => {
    await ctx.store.updateRun(run.runId, { status, error });
  };
  const hosted = ctx.graphs.get(run.assistantId);
  if (!hosted) {
    const error = { error: "NOT_FOUND", message: `Assistant "${run.assistantId}" is not served here.` };
    await emit("error", error);
    await finish("error", error);
    return "error";
  }
  const graph = hosted.graph;
  const threadId = run.threadId;
  if (run.attempt <= 1) {
    const head = await ctx.saver.get({ threadId });
    run.preCheckpointId = head?.checkpoint.id ?? null;
    run.preWriteCount = head?.pendingWrites.length ?? 0;
    await ctx.store.updateRun(run.runId, { preCheckpointId: run.preCheckpointId, preWriteCount: run.preWriteCount });
  }
  await ctx.store.updateThread(threadId, { status: "busy", graphId: run.assistantId });
  await emit("metadata", { run_id: run.runId, thread_id: threadId, attempt: run.attempt });

  const timer = setTimeout(() => ctx.setStop("timeout"), ctx.limits.runTimeMs);
  timer.unref?.();
  const apiModes = run.kwargs.streamMode;
  const wanted = new Set(coreModes(apiModes));
  let lastValues: Record<string, unknown> | undefined;
  try {
    const { input, original } = await inputFor(run, graph, ctx.saver);
    const config = runConfig(run, ctx, original);
    for await (const e of graph.streamEvents(input as GraphInput<never>, {
      ...config,
      streamMode: [...new Set<StreamMode>(["values", ...wanted])],
    })) {
      if (e.mode === "values" && e.namespace.length === 0) {
        lastValues = e.data;
        if (Buffer.byteLength(JSON.stringify(e.data ?? {})) > ctx.limits.stateBytes) ctx.setStop("state-too-large");
      }
      if (!wanted.has(e.mode)) continue;
      await emit(sseEventName(e), sseData(e));
    }
    const state = await graph.getState({ threadId });
    const interrupted = state.next.length > 0;
    if (interrupted && wanted.has("values") && state.interrupts.length > 0) {
      await emit("values", { ...state.values, __interrupt__: state.interrupts.map(toApiInterrupt) });
    }
    await finish(interrupted ? "interrupted" : "success");
    return interrupted ? "interrupted" : "idle";
  } catch (error) {
    return await stopped(run, ctx, error, { emit, finish, lastValues });
  } finally {
    clearTimeout(timer);
  }
}

async function stopped(
  run: RunRecord,
  ctx: ExecuteContext,
  error: unknown,
  io: {
    emit: (event: string, data: unknown) => Promise<void>;
    finish: (status: RunStatus, error?: RunRecord["error"]) => Promise<void>;
    lastValues: Record<string, unknown> | undefined;
  },
): Promise<ThreadStatus | undefined> {
  const reason = ctx.signal.aborted ? ctx.stopReason() : undefined;
  if (reason === "shutdown") {
    await ctx.store.updateRun(run.runId, { status: "pending" });
    return undefined;
  }
  if (reason === "rollback") {
    await rollbackRun(ctx.saver, { ...run, threadId: run.threadId });
    await io.emit("error", { error: "RUN_ROLLED_BACK", message: "The run was cancelled and its progress undone." });
    await io.finish("interrupted", { error: "RUN_ROLLED_BACK", message: "Rolled back." });
    return "idle";
  }
  if (reason === "cancel") {
    await io.finish("interrupted");
    return "interrupted";
  }
  if (reason === "timeout") {
    const e = { error: "RUN_TIMEOUT", message: `The run exceeded its time limit of ${ctx.limits.runTimeMs} ms.` };
    await io.emit("error", e);
    await io.finish("timeout", e);
    return "error";
  }
  const e =
    reason === "state-too-large"
      ? { error: "PAYLOAD_TOO_LARGE", message: `The thread state grew past ${ctx.limits.stateBytes} bytes.` }
      : {
          error: error instanceof TrellisError ? error.code : ((error as Error)?.name ?? "Error"),
          message: (error as Error)?.message ?? String(error),
        };
  await io.emit("error", e);
  await io.finish("error", e);
  return "error";
}

/** An interrupt in the Agent Server's JSON shape. @internal */
export function toApiInterrupt(i: { id: string; value: unknown; node: string; namespace: string }) {
  return { id: i.id, value: i.value, when: "during", resumable: true, ns: i.namespace ? i.namespace.split("|") : [] };
}

/**
 * The input of a run's attempt. A first attempt gets the request's input or command. A later attempt
 * (the server died mid-run) continues from the last checkpoint when the run had already applied its
 * input there, so nothing is applied twice and finished tasks do not run again.
 */
async function inputFor(
  run: RunRecord,
  graph: AnyGraph,
  saver: CheckpointSaver,
): Promise<{ input: unknown; original: boolean }> {
  const original = { input: requestInput(run), original: true };
  if (run.attempt <= 1) return original;
  const head = await saver.get({ threadId: run.threadId });
  if (!head) return original;
  if (head.checkpoint.metadata.run_id === run.runId) return { input: null, original: false };
  if (run.kwargs.command?.resume !== undefined) {
    const state = await graph.getState({ threadId: run.threadId });
    // the resume was recorded before the crash: its interrupt is answered, the task waits to re-run
    if (state.interrupts.length === 0 && state.next.length > 0) return { input: null, original: false };
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

function runConfig(run: RunRecord, ctx: ExecuteContext, original: boolean): RunConfig & StreamOptions {
  const k = run.kwargs;
  const config: RunConfig & StreamOptions = {
    threadId: run.threadId,
    runId: run.runId,
    metadata: { ...run.metadata, run_id: run.runId, assistant_id: run.assistantId },
    signal: ctx.signal,
    drainSignal: ctx.drainSignal,
    subgraphs: k.streamSubgraphs,
  };
  if (k.config.configurable) {
    const { checkpoint_id: _c, thread_id: _t, ...rest } = k.config.configurable;
    config.configurable = rest;
  }
  if (k.config.recursion_limit !== undefined) config.recursionLimit = k.config.recursion_limit;
  if (k.interruptBefore) config.interruptBefore = k.interruptBefore;
  if (k.interruptAfter) config.interruptAfter = k.interruptAfter;
  if (k.durability) config.durability = k.durability;
  if (k.checkpointId && original) config.checkpointId = k.checkpointId;
  return config;
}
