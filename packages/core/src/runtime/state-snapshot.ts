import type { CheckpointMetadata, CheckpointSaver, CheckpointTuple } from "@trellis/checkpoint";
import { WRITE } from "../constants.js";
import type { GraphSpec } from "../graph/spec.js";
import type { Interrupt } from "./command.js";
import { pendingInterrupts } from "./resume.js";
import { taskIdOf } from "./step-tasks.js";
import { stateFromTuple } from "./thread-state.js";

/**
 * A task of the next superstep, as `getState` shows it.
 *
 * @example
 * const { tasks } = await graph.getState({ threadId });
 * const failed: StateTask[] = tasks.filter((t) => t.error);
 */
export interface StateTask {
  id: string;
  name: string;
  /** Interrupts of this task still waiting for an answer. */
  interrupts: Interrupt[];
  /** Set when the task failed in its last attempt. */
  error?: { name: string; message: string };
  /** With `{ subgraphs: true }`: the state of the subgraph this task runs. */
  state?: StateSnapshot;
}

/**
 * A thread's state at one checkpoint.
 *
 * @example
 * const snapshot = await graph.getState({ threadId });
 * if (snapshot.interrupts.length) showQuestion(snapshot.interrupts[0].value);
 */
export interface StateSnapshot<V = Record<string, unknown>> {
  values: V;
  /** Nodes that run next; empty when the thread finished. */
  next: string[];
  tasks: StateTask[];
  interrupts: Interrupt[];
  checkpointId: string | undefined;
  parentCheckpointId: string | undefined;
  metadata: CheckpointMetadata | undefined;
  createdAt: string | undefined;
  /** The config that addresses this checkpoint. */
  config: { threadId: string; checkpointId?: string; namespace?: string };
}

/** Builds the snapshot of a stored checkpoint. @internal */
export async function snapshotOf(
  spec: GraphSpec,
  saver: CheckpointSaver,
  tuple: CheckpointTuple,
  subgraphs: boolean,
): Promise<StateSnapshot> {
  const state = stateFromTuple(spec.schema, tuple);
  const { checkpoint } = tuple;
  const interrupts = pendingInterrupts(state.pending);
  const tasks: StateTask[] = [];
  for (let i = 0; i < checkpoint.next.length; i++) {
    const planned = checkpoint.next[i] as { node: string };
    const id = taskIdOf(checkpoint, i);
    const task: StateTask = {
      id,
      name: planned.node,
      interrupts: interrupts.filter((p) => p.taskId === id).map(({ taskId: _t, ...rest }) => rest),
    };
    const error = state.pending.get(id)?.get(WRITE.error) as StateTask["error"] | undefined;
    if (error) task.error = error;
    const node = spec.nodes.get(planned.node);
    if (subgraphs && node?.subgraph) {
      const namespace = `${checkpoint.namespace ? `${checkpoint.namespace}|` : ""}${planned.node}:${id}`;
      const child = await saver.get({ threadId: checkpoint.threadId, namespace });
      if (child) task.state = await snapshotOf(node.subgraph.spec, saver, child, true);
    }
    tasks.push(task);
  }
  return {
    values: state.values,
    next: checkpoint.next.map((p) => p.node),
    tasks,
    interrupts: interrupts.map(({ taskId: _t, ...rest }) => rest),
    checkpointId: checkpoint.id,
    parentCheckpointId: checkpoint.parentId ?? undefined,
    metadata: checkpoint.metadata,
    createdAt: checkpoint.createdAt,
    config: {
      threadId: checkpoint.threadId,
      checkpointId: checkpoint.id,
      ...(checkpoint.namespace ? { namespace: checkpoint.namespace } : {}),
    },
  };
}

/** The snapshot of a thread that has no checkpoint. @internal */
export function emptySnapshot(values: Record<string, unknown>, threadId: string): StateSnapshot {
  return {
    values,
    next: [],
    tasks: [],
    interrupts: [],
    checkpointId: undefined,
    parentCheckpointId: undefined,
    metadata: undefined,
    createdAt: undefined,
    config: { threadId },
  };
}
