/**
 * Where a run's request is bound to the thread as it stands: the thread's graph, the graph's checks of
 * the input, config and answers, and a resume bound to the pause pending when its request arrived (the
 * core's `bindResume` and `decideInput`, called, never re-stated).
 */
import { performance } from "node:perf_hooks";
import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { bindResume, isResumeMap, type StateSnapshot } from "@trellis/core";
import type { HostedGraph } from "../assistants/graph-registry.js";
import type { RunKwargs, RunStore, ThreadRecord } from "../stores/run-store.js";

/** A command's update as the Agent Server sends it: an object, or a list of `[key, value]` pairs. */
function toUpdate(update: unknown): unknown {
  return Array.isArray(update) ? Object.fromEntries(update as Array<[string, unknown]>) : update;
}

/**
 * A thread belongs to the graph of its first run: an assistant of another graph on it is a 409; any
 * assistant of the same graph may run it.
 *
 * @example
 * checkBinding(await store.getThread(threadId), "tutor", "tutor"); // a 409 on a thread of another graph
 */
export function checkBinding(thread: ThreadRecord | undefined, graphId: string, assistantId: string): void {
  if (!thread?.graphId || thread.graphId === graphId) return;
  throw new TrellisError(
    "CONFLICT",
    `Thread "${thread.threadId}" belongs to graph "${thread.graphId}": run it with an assistant of that graph (assistant_id "${thread.graphId}" or one made from it), or start a new thread for "${assistantId}" (graph "${graphId}").`,
    { details: { threadId: thread.threadId, graphId: thread.graphId } },
  );
}

/**
 * Refuses (409 `RESUME_MISMATCH`, naming the interrupts pending now) a resume that names no interrupt
 * unless the pause the thread shows (`snapshot`, read before this) was pending when the request
 * arrived: no run has started on the thread that may still be making a pause, and the thread's state
 * has not changed since the arrival. The change is stamped on the store's clock (the database's in
 * scale-out); the arrival is put on that clock by subtracting the time elapsed since, measured on this
 * process's monotonic clock up to the moment the store read its clock when the store is in this process
 * (`StateClock.readAt`), else up to the end of the read, so it is never later than it was: a pause made
 * after the arrival is always refused, whatever the hosts' clocks say.
 */
async function pendingSinceArrival(
  store: RunStore,
  threadId: string,
  snapshot: StateSnapshot,
  arrivedAt: number,
): Promise<void> {
  const started = (await store.activeRuns(threadId)).filter((r) => r.status === "running" || r.attempt > 0);
  const clock = await store.stateClock(threadId);
  // the request's age when the store read its clock: exact for an in-process store, else an upper bound
  const arrival = clock.now - ((clock.readAt ?? performance.now()) - arrivedAt);
  const changed = clock.changedAt !== null && clock.changedAt > arrival;
  if (started.length === 0 && !changed) return;
  const pending = snapshot.interrupts.map((i) => i.id);
  const listed = snapshot.interrupts.map((i) => `${i.id} (node "${i.node}")`).join(", ") || "none";
  const why =
    started.length > 0
      ? `has a run in progress (${started[0]?.runId}) that may answer its pause or make a new one`
      : "changed after this request arrived (a run ended or its state was updated)";
  throw new TrellisError(
    "RESUME_MISMATCH",
    `Thread "${threadId}" ${why}, so a resume that names no interrupt cannot answer what it asks now: read its state and resume by interrupt id (command: { resume: { [id]: value } }). Pending: ${listed}.`,
    { details: { threadId, pending, ...(started.length > 0 ? { running: started.map((r) => r.runId) } : {}) } },
  );
}

/**
 * The core's rules for what a run may do to the thread as it stands now; rewrites `kwargs` to bind a
 * resume (or an input the graph takes as an answer) to the pause pending now; for a resume that names
 * no interrupt, that must be the pause pending when its request arrived ({@link pendingSinceArrival}).
 *
 * @example
 * await acceptRun({ store, saver }, thread, hosted, { kwargs, arrivedAt: requestArrival() });
 */
export async function acceptRun(
  parts: { store: RunStore; saver: CheckpointSaver },
  thread: ThreadRecord | undefined,
  hosted: HostedGraph,
  request: { kwargs: RunKwargs; arrivedAt: number },
): Promise<void> {
  const { kwargs, arrivedAt } = request;
  const threadId = thread?.threadId;
  if (kwargs.checkpointId !== null) {
    if (!thread || !(await parts.saver.get({ threadId: thread.threadId, checkpointId: kwargs.checkpointId }))) {
      throw new TrellisError("CHECKPOINT_NOT_FOUND", `The thread has no checkpoint ${kwargs.checkpointId}.`);
    }
    return; // a fork: the run starts from that checkpoint, not from the pause at the head
  }
  const snapshot = thread ? await hosted.graph.getState({ threadId: thread.threadId }) : undefined;
  const command = kwargs.command;
  // the graph's own check of what the input or update would make of the state: a 400 now, not a failed run
  const proposed = command?.update ?? kwargs.input;
  if (proposed !== null && proposed !== undefined) {
    hosted.graph.checkInput(
      snapshot?.values as Record<string, unknown> | undefined,
      toUpdate(proposed),
      command?.update != null ? "command" : "input",
    );
  }
  // the graph's declared config and context schemas (LangGraph's config_schema, context_schema)
  hosted.graph.checkConfig({ configurable: kwargs.config.configurable, context: kwargs.context });
  if (command?.resume !== undefined) {
    if (!snapshot?.checkpointId) {
      throw new TrellisError("NOTHING_TO_RESUME", "The thread has no checkpoint yet: start it with an input.");
    }
    // an id map says which interrupts it answers; a plain value answers the pause pending on arrival
    if (!isResumeMap(command.resume)) await pendingSinceArrival(parts.store, threadId as string, snapshot, arrivedAt);
    const binding = bindResume(snapshot, command.resume, threadId);
    // the answers against the resumeSchema of the nodes that paused: a 400 now, the thread still paused
    if (binding.kind === "interrupts") hosted.graph.checkResume(snapshot.interrupts, binding.resume);
    if (binding.kind === "interrupts") kwargs.command = { ...command, resume: binding.resume };
    kwargs.expectedCheckpointId = snapshot.checkpointId;
    return;
  }
  if (command !== null || kwargs.input === null) {
    if (!snapshot?.checkpointId) {
      throw new TrellisError("NOTHING_TO_RESUME", "The thread has no checkpoint yet: start it with an input.");
    }
    return;
  }
  const input = kwargs.input;
  if (!snapshot?.checkpointId || typeof input !== "object" || Array.isArray(input)) return;
  const decision = hosted.graph.decideInput(snapshot, input as Record<string, unknown>, threadId);
  if (decision.kind === "start") return;
  // a message, not a resume: the graph's policy makes it the answer to the question waiting when it
  // runs (queued behind a run, the core applies the same policy at its turn), not a pause's answer by arrival
  if (decision.kind === "resume") hosted.graph.checkResume(snapshot.interrupts, decision.resume);
  // the input answers the pause pending now (an interrupt, or a static breakpoint), and only that one
  kwargs.input = null;
  kwargs.command = decision.kind === "resume" ? { resume: decision.resume } : { update: decision.update };
  kwargs.expectedCheckpointId = snapshot.checkpointId;
}
