import type { StateSnapshot as CoreSnapshot, StateTask as CoreTask, Interrupt } from "@trellis/core";
import type { LangGraphRunnableConfig } from "./config.js";
import { type CompatSchema, toGraphState } from "./state-schema.js";

/**
 * An interrupt as LangGraph shows it: its id and value.
 *
 * @example
 * const [pause]: LangGraphInterrupt[] = result.__interrupt__ ?? [];
 */
export interface LangGraphInterrupt<V = unknown> {
  id: string;
  value: V;
}

/**
 * A task of a snapshot, in LangGraph's shape.
 *
 * @example
 * const waiting = snapshot.tasks.filter((t: PregelTaskDescription) => t.interrupts.length > 0);
 */
export interface PregelTaskDescription {
  id: string;
  name: string;
  interrupts: LangGraphInterrupt[];
  error?: unknown;
  state?: StateSnapshot;
  path?: string[];
}

/**
 * A thread's state at one checkpoint, in LangGraph's shape: `config` and `parentConfig` address the
 * checkpoint and its parent by `thread_id` / `checkpoint_id`.
 *
 * @example
 * const snapshot: StateSnapshot = await graph.getState({ configurable: { thread_id: "t1" } });
 * console.log(snapshot.next, snapshot.config.configurable?.checkpoint_id);
 */
export interface StateSnapshot {
  values: Record<string, unknown>;
  next: string[];
  tasks: PregelTaskDescription[];
  interrupts: LangGraphInterrupt[];
  metadata: Record<string, unknown> | undefined;
  createdAt: string | undefined;
  config: LangGraphRunnableConfig;
  parentConfig: LangGraphRunnableConfig | undefined;
}

/** `{ id, value }` of Trellis interrupts. @internal */
export function toInterrupts(list: readonly Interrupt[]): LangGraphInterrupt[] {
  return list.map((i) => ({ id: i.id, value: i.value }));
}

function addressOf(threadId: string, checkpointId: string | undefined, namespace = ""): LangGraphRunnableConfig {
  const configurable: Record<string, unknown> = { thread_id: threadId, checkpoint_ns: namespace };
  if (checkpointId !== undefined) configurable.checkpoint_id = checkpointId;
  return { configurable };
}

/** The config LangGraph returns from `updateState`. @internal */
export function checkpointConfig(threadId: string, checkpointId: string): LangGraphRunnableConfig {
  return addressOf(threadId, checkpointId);
}

function taskOf(schema: CompatSchema, task: CoreTask): PregelTaskDescription {
  const out: PregelTaskDescription = { id: task.id, name: task.name, interrupts: toInterrupts(task.interrupts) };
  if (task.error) out.error = task.error;
  if (task.state) out.state = toLangGraphSnapshot(schema, task.state);
  return out;
}

/** A Trellis snapshot in LangGraph's shape. @internal */
export function toLangGraphSnapshot(schema: CompatSchema, snapshot: CoreSnapshot): StateSnapshot {
  const { threadId, namespace } = snapshot.config;
  return {
    values: toGraphState(schema, snapshot.values),
    next: snapshot.next,
    tasks: snapshot.tasks.map((t) => taskOf(schema, t)),
    interrupts: toInterrupts(snapshot.interrupts),
    metadata: snapshot.metadata ? Object.assign({}, snapshot.metadata, { parents: {} }) : undefined,
    createdAt: snapshot.createdAt,
    config: addressOf(threadId, snapshot.checkpointId, namespace),
    parentConfig:
      snapshot.parentCheckpointId === undefined
        ? undefined
        : addressOf(threadId, snapshot.parentCheckpointId, namespace),
  };
}
