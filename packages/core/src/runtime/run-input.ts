import { TrellisError } from "@trellis/checkpoint";
import { START, WRITE } from "../constants.js";
import { ResumeError } from "../errors.js";
import { checkResumeAnswers, checkTypedKeys } from "../schema/check-state.js";
import { checkInputKeys, pickInput } from "../schema/input-output-keys.js";
import { applyWrites, type TaskWrite } from "./apply.js";
import { Command } from "./command.js";
import { breakpointOf, closeDanglingToolCalls, decidePausedInput } from "./paused-input.js";
import { isResumeMap, pendingInterrupts, resolveResume } from "./resume.js";
import { route } from "./route.js";
import type { RunContext } from "./run-context.js";
import type { ThreadState } from "./thread-state.js";
import { validateUpdate } from "./validate-update.js";

/**
 * Applies the run's input — new values, a `Command`, or nothing to continue — and stores its
 * checkpoint. Returns true when the run continues a stored checkpoint. @internal
 */
export async function applyInput(run: RunContext, state: ThreadState): Promise<boolean> {
  let input = run.request.input;
  const parent = run.request.parent;
  if (parent && state.stored && state.checkpoint.next.length > 0) {
    // A subgraph task running again: continue where the subgraph stopped instead of starting over.
    input = Object.keys(parent.resume).length > 0 ? new Command({ resume: parent.resume }) : null;
  }
  if (input instanceof Command) return applyCommand(run, state, input);
  if (input === null || input === undefined) {
    if (!state.stored) {
      throw new ResumeError(
        "NOTHING_TO_RESUME",
        `Thread "${run.threadId ?? "(none)"}" has no checkpoint to continue from. Pass an input to start it.`,
        { details: { threadId: run.threadId } },
      );
    }
    return true;
  }
  const { spec } = run;
  const given = validateUpdate(spec.schema, "input", input, run.knownPlain) ?? {};
  // a subgraph takes its input keys from its parent's state; a caller's input may set only them
  if (!parent) checkInputKeys(spec, given);
  const update = parent ? pickInput(spec, given) : given;
  const writes: TaskWrite[] = [{ node: "input", update }];
  if (!parent && state.stored) {
    const pending = pendingInterrupts(state.pending);
    const breakpoint = breakpointOf(spec, {
      next: state.checkpoint.next.map((p) => p.node),
      writers: Object.keys(state.checkpoint.metadata.writes ?? {}),
      interrupts: pending.length,
    });
    const decision = decidePausedInput(spec.onInputWhilePaused, pending, update, run.threadId, breakpoint);
    if (decision.kind === "resume") return applyCommand(run, state, new Command({ resume: decision.resume }));
    if (decision.kind === "continue") return applyCommand(run, state, new Command({ update: decision.update }));
    // the pause is discarded: tool calls it left open get a reply before the new input
    if (pending.length > 0)
      writes.unshift({ node: "input", update: closeDanglingToolCalls(spec.schema, state.values) });
  }
  const { values, changed } = applyWrites(spec.schema, state.values, writes);
  run.checkSize(values, state);
  if (!parent) checkTypedKeys(spec, values, Object.keys(update), "The run's input");
  spec.validateState?.(values);
  const { next, barriers } = await route(spec, values, [{ node: START, goto: [] }], {}, run.routerContext());
  run.advance(state, {
    values,
    changed,
    next,
    barriers,
    source: "input",
    writes: { [START]: Object.keys(update) },
  });
  await run.writer.checkpoint(state, false, true); // no node has run yet: a quick commit
  run.emitValues(state);
  return false;
}

async function applyCommand(run: RunContext, state: ThreadState, command: Command): Promise<boolean> {
  if (!state.stored) {
    throw new ResumeError(
      "NOTHING_TO_RESUME",
      `Thread "${run.threadId ?? "(none)"}" has no checkpoint, so there is nothing for a Command to resume or update. Start it with an input first.`,
      { details: { threadId: run.threadId } },
    );
  }
  const { spec } = run;
  const hasRouting = command.update !== undefined || command.goto.length > 0;
  if (command.hasResume) {
    if (command.goto.length > 0) {
      throw new TrellisError(
        "INVALID_ARGUMENT",
        "A Command passed to invoke may carry `resume` (with an `update`), or `goto`, but not both. Route with updateState first, then resume.",
      );
    }
    // LangGraph's Command({ update, resume }): a reviewer edits the state while answering the pause
    if (command.update !== undefined) await updateKeepingPause(run, state, command.update);
    const pending = pendingInterrupts(state.pending);
    if (pending.length === 0 && !isResumeMap(command.resume) && state.checkpoint.next.length > 0) {
      // Paused at a breakpoint or after a failure: as in LangGraph, a resume simply continues.
      return true;
    }
    const answers = resolveResume(pending, command.resume, {
      threadId: run.threadId,
      strict: !run.request.parent,
    });
    if (spec.hasResumeSchemas) {
      checkResumeAnswers(spec, pending, Object.assign({}, ...answers.values()));
    }
    for (const [taskId, given] of answers) {
      const previous = (state.pending.get(taskId)?.get(WRITE.resume) ?? {}) as Record<string, unknown>;
      // held: stored with the next checkpoint (or the run's last write), see docs/checkpoints.md
      await run.writer.writes(state, taskId, [[WRITE.resume, { ...previous, ...given }]], true);
    }
    return true;
  }
  if (!hasRouting) return true;
  const update = validateUpdate(spec.schema, "input", command.update, run.knownPlain) ?? {};
  const { values, changed } = applyWrites(spec.schema, state.values, [{ node: "input", update }]);
  run.checkSize(values, state);
  if (!run.request.parent) checkTypedKeys(spec, values, Object.keys(update), "The run's input");
  spec.validateState?.(values);
  const next =
    command.goto.length > 0
      ? (await route(spec, values, [{ node: "input", goto: command.goto }], {}, run.routerContext())).next
      : state.checkpoint.next;
  run.advance(state, {
    values,
    changed,
    next,
    barriers: state.checkpoint.barriers,
    source: "update",
    writes: { [START]: Object.keys(update) },
  });
  await run.writer.checkpoint(state, false, true); // no node has run yet: a quick commit
  run.emitValues(state);
  return true;
}

/**
 * Applies an update as a new checkpoint that keeps the thread's pause: the same next tasks under the
 * same task ids (a fork's `task_base`), and the pending writes of the checkpoint it follows — so the
 * pending interrupts keep their ids and the resume that comes with the update answers them. @internal
 */
export async function updateKeepingPause(run: RunContext, state: ThreadState, raw: unknown): Promise<void> {
  const { spec } = run;
  const carried = state.pending;
  const metadata = state.checkpoint.metadata as { task_base?: unknown };
  const taskBase = typeof metadata.task_base === "string" ? metadata.task_base : state.checkpoint.id;
  const update = validateUpdate(spec.schema, "input", raw, run.knownPlain) ?? {};
  const { values, changed } = applyWrites(spec.schema, state.values, [{ node: "input", update }]);
  run.checkSize(values, state);
  if (!run.request.parent) checkTypedKeys(spec, values, Object.keys(update), "The run's input");
  spec.validateState?.(values);
  run.advance(
    state,
    {
      values,
      changed,
      next: state.checkpoint.next,
      barriers: state.checkpoint.barriers,
      source: "update",
      writes: { [START]: Object.keys(update) },
    },
    { task_base: taskBase },
  );
  await run.writer.checkpoint(state, false, true); // no node has run yet: a quick commit
  for (const [taskId, writes] of carried) await run.writer.writes(state, taskId, [...writes]);
  run.emitValues(state);
}
