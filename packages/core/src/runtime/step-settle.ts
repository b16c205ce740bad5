import { WRITE } from "../constants.js";
import { type Command, type Interrupt, ParentCommand } from "./command.js";
import type { RunContext } from "./run-context.js";
import { updateKeepingPause } from "./run-input.js";
import { outcomeOf, type RunOutcome } from "./run-outcome.js";
import type { PlannedStepTask } from "./step-tasks.js";
import type { TaskOutcome } from "./task-runner.js";
import type { ThreadState } from "./thread-state.js";

/**
 * Records the interrupts and errors of a step where not every task finished; returns the outcome when
 * the run must stop here (a pause), throws when it fails or a task sent a command to its parent. @internal
 */
export async function settleStep(
  run: RunContext,
  state: ThreadState,
  tasks: PlannedStepTask[],
  outcomes: TaskOutcome[],
): Promise<RunOutcome | undefined> {
  let error: { error: unknown } | undefined;
  let parent: Command | undefined;
  const interrupts: Interrupt[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const outcome = outcomes[i] as TaskOutcome;
    const taskId = (tasks[i] as PlannedStepTask).id;
    if (outcome.kind === "error") {
      error ??= { error: outcome.error };
      const e = outcome.error as { name?: string; message?: string };
      await run.writer.writes(state, taskId, [
        [WRITE.error, { name: e?.name ?? "Error", message: e?.message ?? String(e) }],
      ]);
    } else if (outcome.kind === "interrupted") {
      interrupts.push(...outcome.interrupts);
      await run.writer.writes(state, taskId, [[WRITE.interrupt, outcome.interrupts]], true); // stored below, with the lease's release
    } else if (outcome.kind === "parent") {
      parent ??= outcome.command;
    }
  }
  if (error) {
    const failed = tasks[outcomes.findIndex((o) => o.kind === "error")];
    if (failed) await recordFailure(run, state, failed.planned.node, error.error);
    throw error.error;
  }
  if (parent) throw new ParentCommand(parent);
  if (interrupts.length === 0 && !outcomes.some((o) => o.kind === "interrupted")) return undefined;
  // the pause is on disk (with the lease given back: the run writes nothing after it) before any
  // event announces it, so a question someone saw is never lost with the process
  await run.writer.storeHeld(!run.request.parent);
  if (run.sink?.modes.has("updates") && interrupts.length > 0) {
    run.push({ mode: "updates", namespace: run.nsPath, data: { __interrupt__: interrupts } });
  }
  return outcomeOf(run, state, "interrupted");
}

/**
 * Writes the graph's `onNodeError` update for a failed step, keeping its tasks (see
 * {@link updateKeepingPause}); nothing for a cancelled run, a subgraph's run, or when the hook
 * returns nothing or fails itself (the node's error is what the run reports either way).
 */
async function recordFailure(run: RunContext, state: ThreadState, node: string, error: unknown): Promise<void> {
  const hook = run.spec.onNodeError;
  if (!hook || run.request.parent || run.signal.aborted || !run.saver) return;
  let update: Record<string, unknown> | undefined;
  try {
    update = hook(error, { node, state: state.values as Record<string, unknown> });
  } catch {
    return;
  }
  if (!update || Object.keys(update).length === 0) return;
  try {
    await updateKeepingPause(run, state, update);
  } catch {
    // the update could not be written (refused by the schema, lease lost): the node's error stands
  }
}
