import type { CheckpointRef, CheckpointTuple } from "@trellis/checkpoint";
import { TrellisError } from "@trellis/checkpoint";
import { WRITE } from "../constants.js";
import { ResumeError } from "../errors.js";
import { acquireLeaseAndLoad, executionLeaseOwner } from "./lease-keeper.js";
import type { RunContext } from "./run-context.js";
import { freshState, stateFromTuple, type ThreadState } from "./thread-state.js";
import { RunTracing, TRACEPARENT_KEY } from "./tracing.js";

/** What the lease's transaction read, when the saver reads the thread with its lease. @internal */
export type Loaded = { tuple: CheckpointTuple | undefined };

/**
 * Takes the thread's lease for a top-level run with a saver (and, with a saver that can, reads the
 * thread in the same transaction). A subgraph's run writes under its parent's lease. @internal
 */
export async function takeLease(run: RunContext): Promise<Loaded | undefined> {
  if (run.saver && run.threadId === undefined) {
    throw new TrellisError(
      "THREAD_REQUIRED",
      `Graph "${run.spec.name}" has a checkpointer, so each run needs a thread: pass { threadId } (or { configurable: { thread_id } }) in the config.`,
    );
  }
  if (!run.saver || run.threadId === undefined || run.request.parent) return undefined;
  const taken = await acquireLeaseAndLoad(run.saver, loadRef(run, run.threadId), run.spec.clock, {
    owner: executionLeaseOwner(run.config),
    ttlMs: run.spec.leaseTtlMs,
    // Another writer took the thread: stop now rather than at the next put, which would be refused.
    onLost: (error) => run.abort(error),
  });
  run.lease = taken.keeper;
  return taken.loaded;
}

/** The checkpoint a run starts from: the head of its namespace, or the one the config names. */
function loadRef(run: RunContext, threadId: string): CheckpointRef {
  const { checkpointId } = run.config;
  return {
    threadId,
    namespace: run.namespace,
    ...(checkpointId !== undefined && !run.request.parent ? { checkpointId } : {}),
  };
}

/** The run's thread state; `loaded` when the lease's transaction already read it. @internal */
export async function loadState(run: RunContext, loaded?: Loaded): Promise<ThreadState> {
  const { spec, config } = run.request;
  const tuple = loaded
    ? loaded.tuple
    : run.saver && run.threadId !== undefined
      ? await run.saver.get(loadRef(run, run.threadId))
      : undefined;
  if (!tuple && config.checkpointId !== undefined && !run.request.parent) {
    throw new TrellisError(
      "CHECKPOINT_NOT_FOUND",
      `Thread "${run.threadId}" has no checkpoint ${config.checkpointId}. List them with getStateHistory(config).`,
      { details: { threadId: run.threadId, checkpointId: config.checkpointId } },
    );
  }
  const expected = run.request.parent ? undefined : config.expectedCheckpointId;
  if (expected !== undefined && tuple?.checkpoint.id !== expected) {
    throw new ResumeError(
      "RESUME_MISMATCH",
      `Thread "${run.threadId}" has moved on from checkpoint ${expected} (now at ${tuple?.checkpoint.id ?? "none"}): the pause this resume answered is gone. Read the thread's state and answer what it asks now.`,
      { details: { threadId: run.threadId, expected, head: tuple?.checkpoint.id } },
    );
  }
  if (tuple) {
    const state = stateFromTuple(spec.schema, tuple);
    // Time travel to an explicit checkpoint re-runs its tasks, as LangGraph does: results recorded
    // there belong to the branch that already went on from it.
    if (config.checkpointId !== undefined && !run.request.parent) {
      for (const writes of state.pending.values()) writes.delete(WRITE.result);
    }
    return state;
  }
  return freshState(spec.schema, {
    threadId: run.threadId ?? "",
    namespace: run.namespace,
    id: spec.nextId(),
    now: spec.clock.now(),
  });
}

/** Starts the run's span; a run continuing a paused thread links to the run that paused it. @internal */
export function startTracing(
  run: RunContext,
  state: ThreadState | undefined,
  startTime: number,
): RunTracing | undefined {
  const paused = state?.stored && state.checkpoint.next.length > 0;
  const pausedBy = paused ? (state.checkpoint.metadata as Record<string, unknown>)[TRACEPARENT_KEY] : undefined;
  const assistantId = run.request.parent ? undefined : run.config.metadata?.assistant_id;
  return RunTracing.start({
    graph: run.spec.name,
    threadId: run.threadId,
    runId: run.config.runId,
    assistantId: typeof assistantId === "string" ? assistantId : undefined,
    namespace: run.namespace,
    carrier: run.request.parent ? undefined : run.config.traceContext,
    pausedBy: typeof pausedBy === "string" ? pausedBy : undefined,
    startTime,
  });
}
