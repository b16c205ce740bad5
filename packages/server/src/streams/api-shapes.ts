import type { StateSnapshot } from "@trellis/core";
import type { ApiCheckpoint, ApiInterrupt, ApiRun, ApiThread, ApiThreadState } from "@trellis/protocol";
import type { ServerContext } from "../http/server-context.js";
import type { RunRecord, ThreadRecord } from "../stores/run-store.js";
import { wireValue } from "./wire-values.js";

/**
 * A run in the Agent Server's JSON shape.
 *
 * @example
 * runJson(run).status; // "pending"
 */
export function runJson(run: RunRecord): ApiRun {
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: run.assistantId,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    status: run.status,
    metadata: run.metadata,
    multitask_strategy: run.multitaskStrategy,
    kwargs: {
      input: run.kwargs.input,
      command: run.kwargs.command,
      config: run.kwargs.config,
      stream_mode: run.kwargs.streamMode,
      interrupt_before: run.kwargs.interruptBefore,
      interrupt_after: run.kwargs.interruptAfter,
      context: run.kwargs.context ?? {},
    },
    attempt: run.attempt,
    error: run.error,
  };
}

/**
 * An interrupt in the Agent Server's JSON shape, its value through {@link wireValue} (a human-in-the-loop
 * request in LangChain's snake_case spelling, messages in LangChain's shape).
 *
 * @example
 * interruptJson({ id: "i1", value: "Name?", node: "ask", namespace: "" }); // { id: "i1", value: "Name?", when: "during", resumable: true, ns: [] }
 */
export function interruptJson(i: { id: string; value: unknown; node: string; namespace: string }): ApiInterrupt {
  return {
    id: i.id,
    value: wireValue(i.value),
    when: "during",
    resumable: true,
    ns: i.namespace ? i.namespace.split("|") : [],
  };
}

/** The wire shapes this file writes, declared once in `@trellis/protocol` (the studio reads the same). */
export type { ApiCheckpoint, ApiThreadState };

/**
 * A checkpoint state in the Agent Server's JSON shape (`GET /threads/{id}/state`, history items).
 *
 * @example
 * stateJson(await graph.getState({ threadId })).checkpoint.checkpoint_id;
 */
export function stateJson(s: StateSnapshot, threadId: string): ApiThreadState {
  const checkpoint = (id: string | undefined): ApiCheckpoint => ({
    thread_id: threadId,
    checkpoint_ns: s.config.namespace ?? "",
    checkpoint_id: id ?? null,
    checkpoint_map: null,
  });
  return {
    values: wireValue(s.values),
    next: s.next,
    tasks: s.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      error: t.error ? `${t.error.name}: ${t.error.message}` : null,
      interrupts: t.interrupts.map(interruptJson),
      checkpoint: null,
      state: t.state ? stateJson(t.state, threadId) : null,
    })),
    checkpoint: checkpoint(s.checkpointId),
    metadata: s.metadata ?? null,
    created_at: s.createdAt ?? null,
    parent_checkpoint: s.parentCheckpointId ? checkpoint(s.parentCheckpointId) : null,
    interrupts: s.interrupts.map(interruptJson),
  };
}

/** The thread's current state snapshot, or undefined when no graph ever ran on it. @internal */
export async function threadSnapshot(
  ctx: ServerContext,
  thread: ThreadRecord,
  checkpointId?: string,
  subgraphs = false,
): Promise<StateSnapshot | undefined> {
  const graphId = thread.graphId ?? (thread.metadata.graph_id as string | undefined);
  const hosted = graphId ? ctx.graphs.get(graphId) : undefined;
  if (!hosted) return undefined;
  return hosted.graph.getState(
    { threadId: thread.threadId, ...(checkpointId !== undefined ? { checkpointId } : {}) },
    { subgraphs },
  );
}

/**
 * A thread in the Agent Server's JSON shape, with its current values and pending interrupts.
 *
 * @example
 * (await threadJson(ctx, thread)).status; // "interrupted"
 */
export async function threadJson(ctx: ServerContext, thread: ThreadRecord): Promise<ApiThread> {
  const snapshot = await threadSnapshot(ctx, thread);
  const interrupts: Record<string, ApiInterrupt[]> = {};
  for (const task of snapshot?.tasks ?? []) {
    if (task.interrupts.length) interrupts[task.id] = task.interrupts.map(interruptJson);
  }
  return {
    thread_id: thread.threadId,
    created_at: thread.createdAt,
    updated_at: thread.updatedAt,
    state_updated_at: snapshot?.createdAt ?? thread.updatedAt,
    metadata: thread.metadata,
    status: thread.status,
    values: snapshot ? wireValue(snapshot.values) : null,
    interrupts,
    config: {},
    error: thread.error ?? null,
  };
}
