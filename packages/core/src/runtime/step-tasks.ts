import { type Checkpoint, type PlannedTask, TrellisError } from "@trellis/checkpoint";
import { WRITE } from "../constants.js";
import type { GraphSpec } from "../graph/spec.js";
import { type Goto, Send } from "./command.js";
import type { RunnableTask, TaskOutcome } from "./task-runner.js";
import type { ThreadState } from "./thread-state.js";

/** A task of the coming superstep, with what was recorded for it already. @internal */
export interface PlannedStepTask {
  id: string;
  planned: PlannedTask;
  /** The stored result, when this task finished before (its siblings paused or failed). */
  recorded: unknown;
  runnable: RunnableTask;
}

const NO_RESUME: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The id of the `index`-th task a checkpoint plans: derived from the checkpoint's id, or, for a fork
 * made by `CompiledGraph.fork`, from the id of the checkpoint it copies, so its tasks keep their ids —
 * and with them their interrupt ids, recorded steps and subgraph namespaces. @internal
 */
export function taskIdOf(checkpoint: Pick<Checkpoint, "id" | "metadata">, index: number): string {
  return `${taskBaseOf(checkpoint)}.${index}`;
}

function taskBaseOf(checkpoint: Pick<Checkpoint, "id" | "metadata">): string {
  const base = (checkpoint.metadata as { task_base?: unknown }).task_base;
  return typeof base === "string" ? base : checkpoint.id;
}

/**
 * Turns the checkpoint's planned tasks into runnable ones. Task ids are derived from the checkpoint id
 * and the task's position, so a task keeps its id when the superstep runs again. @internal
 */
export function planTasks(spec: GraphSpec, state: ThreadState, superstep: number): PlannedStepTask[] {
  const { checkpoint, pending } = state;
  // Tasks share one read-only view of the state (§3): assigning to it throws instead of silently
  // changing what siblings and the caller see but the checkpoint does not hold.
  const values = Object.freeze(state.values);
  const base = taskBaseOf(checkpoint);
  return checkpoint.next.map((planned, i) => {
    const id = `${base}.${i}`;
    const node = spec.nodes.get(planned.node);
    if (!node) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `Checkpoint ${checkpoint.id} plans node "${planned.node}", which graph "${spec.name}" does not have. Was the graph changed after this thread paused?`,
        { details: { node: planned.node, checkpointId: checkpoint.id } },
      );
    }
    const writes = pending.size > 0 ? pending.get(id) : undefined;
    let steps: Map<string, unknown> | undefined;
    if (writes) {
      for (const [channel, value] of writes) {
        if (!channel.startsWith(WRITE.stepPrefix)) continue;
        if (!steps) steps = new Map();
        steps.set(channel.slice(WRITE.stepPrefix.length), value);
      }
    }
    return {
      id,
      planned,
      recorded: writes?.get(WRITE.result),
      runnable: {
        id,
        node,
        input: planned.send ? planned.send.arg : values,
        superstep,
        resume: (writes?.get(WRITE.resume) as Record<string, unknown> | undefined) ?? NO_RESUME,
        steps,
      },
    };
  });
}

type StoredGoto = string | { send: { node: string; arg: unknown } };

/** A finished task's result as stored in a pending write. @internal */
export function encodeResult(outcome: Extract<TaskOutcome, { kind: "done" }>): unknown {
  const goto: StoredGoto[] = outcome.goto.map((g) => (g instanceof Send ? { send: { node: g.node, arg: g.arg } } : g));
  return { update: outcome.update, goto };
}

/** @internal */
export function decodeResult(recorded: unknown): TaskOutcome {
  const { update, goto } = recorded as { update: Record<string, unknown> | null; goto: StoredGoto[] };
  const decoded: Goto[] = (goto ?? []).map((g) => (typeof g === "string" ? g : new Send(g.send.node, g.send.arg)));
  return { kind: "done", update, goto: decoded };
}
