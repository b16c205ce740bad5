import type { Context } from "@opentelemetry/api";
import { WRITE } from "../constants.js";
import { applyWrites, type TaskWrite } from "./apply.js";
import { type Finished, route } from "./route.js";
import type { RunContext } from "./run-context.js";
import {
  breadthError,
  breaks,
  MAX_TASKS_PER_STEP,
  outcomeOf,
  type RunOutcome,
  reachedPause,
  recursionError,
} from "./run-outcome.js";
import { settleStep } from "./step-settle.js";
import { decodeResult, encodeResult, type PlannedStepTask, planTasks } from "./step-tasks.js";
import { raceAbort, runTask, type TaskEnv, type TaskOutcome } from "./task-runner.js";
import { isThenable } from "./thenable.js";
import type { ThreadState } from "./thread-state.js";
import { recordError } from "./tracing.js";

function isDone(outcome: TaskOutcome): boolean {
  return outcome.kind === "done";
}

/**
 * Runs supersteps from the thread's head until nothing is planned (done), a breakpoint, an interrupt
 * or a drain stops it (interrupted), or a task fails (thrown). Each step plans its tasks, runs them,
 * applies their writes, routes, and hands the new checkpoint to the writer. @internal
 */
export async function runSupersteps(run: RunContext, state: ThreadState, continuing: boolean): Promise<RunOutcome> {
  const { spec, config } = run;
  const counts = new Map<string, number>();
  let stepsRun = 0;
  // a recovered run keeps the pause it had reached; only an update's checkpoint is run past, as its run did
  const recover = config.recover === true && !run.request.parent;
  if (recover && reachedPause(run, state)) return outcomeOf(run, state, "interrupted");
  let skipBreakpoint = continuing && !(recover && state.checkpoint.metadata.source !== "update");
  for (;;) {
    const plan = state.checkpoint.next;
    if (plan.length === 0) return outcomeOf(run, state, "done");
    if (!skipBreakpoint && breaks(spec.interruptBefore, config.interruptBefore, plan)) {
      return outcomeOf(run, state, "interrupted");
    }
    if (stepsRun > 0 && config.drainSignal?.aborted) return outcomeOf(run, state, "interrupted");
    skipBreakpoint = false;
    if (stepsRun >= config.recursionLimit) throw recursionError(run, counts);
    if (plan.length > MAX_TASKS_PER_STEP) throw breadthError(run, plan, state.checkpoint.step + 1);
    stepsRun++;
    for (const p of plan) counts.set(p.node, (counts.get(p.node) ?? 0) + 1);
    const superstep = state.checkpoint.step + 1;
    const tasks = planTasks(spec, state, superstep);
    const traced = run.tracing?.superstep(
      superstep,
      plan.map((p) => p.node),
    );
    let outcomes: TaskOutcome[];
    try {
      // Awaited only when something in the step was asynchronous: see runTask and route.
      const ran = runStep(run, state, tasks, superstep, traced?.context);
      outcomes = isThenable(ran) ? await ran : ran;
      if (!outcomes.every(isDone)) {
        const stop = await settleStep(run, state, tasks, outcomes);
        if (stop) return stop;
      }
    } catch (error) {
      if (traced) recordError(traced.span, error);
      throw error;
    } finally {
      traced?.span.end();
    }
    const finished: Finished[] = [];
    const writes: TaskWrite[] = [];
    const writesMeta: Record<string, string[]> = {};
    for (let i = 0; i < tasks.length; i++) {
      const outcome = outcomes[i] as Extract<TaskOutcome, { kind: "done" }>;
      const node = (tasks[i] as PlannedStepTask).planned.node;
      // Every node that ran is listed, even with no keys: updateState infers `asNode` from it.
      const listed = writesMeta[node];
      if (outcome.update) {
        writes.push({ node, update: outcome.update });
        const keys = Object.keys(outcome.update);
        writesMeta[node] = listed === undefined || listed.length === 0 ? keys : [...new Set([...listed, ...keys])];
      } else if (listed === undefined) {
        writesMeta[node] = [];
      }
      finished.push({ node, goto: outcome.goto });
    }
    const { values, changed } = applyWrites(spec.schema, state.values, writes);
    run.checkSize(values, state);
    const routing = route(spec, values, finished, state.checkpoint.barriers, run.routerContext());
    const routed = isThenable(routing) ? await routing : routing;
    run.advance(state, {
      values,
      changed,
      next: routed.next,
      barriers: routed.barriers,
      source: "loop",
      writes: writesMeta,
    });
    const stored = run.writer.checkpoint(state, routed.next.length === 0); // nothing next: the run's last write
    if (stored) await stored;
    emitStep(run, state, tasks, outcomes);
    if (breaks(spec.interruptAfter, config.interruptAfter, plan)) {
      return outcomeOf(run, state, "interrupted");
    }
  }
}

/**
 * Runs a step's tasks. One task with no debug stream or tracing runs without a promise when its node
 * returns without one; anything else goes through {@link runTasks}.
 */
function runStep(
  run: RunContext,
  state: ThreadState,
  tasks: PlannedStepTask[],
  superstep: number,
  traced: Context | undefined,
): TaskOutcome[] | Promise<TaskOutcome[]> {
  const task = tasks[0] as PlannedStepTask;
  if (tasks.length !== 1 || task.recorded || (traced && run.tracing) || run.sink?.modes.has("debug")) {
    return runTasks(run, state, tasks, superstep, traced);
  }
  const signal = run.signal;
  const started = runTask(task.runnable, run.taskEnv(state));
  if (isThenable(started)) return raceAbort(started, signal).then((outcome) => [outcome]);
  if (signal.aborted) throw signal.reason;
  return [started];
}

async function runTasks(
  run: RunContext,
  state: ThreadState,
  tasks: PlannedStepTask[],
  superstep: number,
  traced: Context | undefined,
): Promise<TaskOutcome[]> {
  const outcomes: TaskOutcome[] = new Array(tasks.length);
  const env = run.taskEnv(state);
  const many = tasks.length > 1;
  const debug = run.sink?.modes.has("debug") ? run.sink : undefined;
  if (!debug && !(traced && run.tracing) && !(many && run.saver) && run.config.maxConcurrency >= tasks.length) {
    return runPlainTasks(run, tasks, env, outcomes);
  }
  const runOne = async (i: number) => {
    const task = tasks[i] as PlannedStepTask;
    if (task.recorded) {
      outcomes[i] = decodeResult(task.recorded);
      return;
    }
    const runnable = task.runnable;
    // stamped when the task starts and ends, not when a reader gets to the event: a server's run
    // timeline places the task's model and tool calls (stamped when they start) inside it
    const node = runnable.node.name;
    debug?.push(
      run.debug({ type: "task", step: superstep, taskId: runnable.id, node, timestamp: run.spec.clock.now() }),
    );
    const tracing = traced && run.tracing;
    const outcome = tracing
      ? await tracing.task<TaskOutcome>(traced, { id: runnable.id, node: runnable.node.name, superstep }, () =>
          runTask(runnable, env),
        )
      : await runTask(runnable, env);
    outcomes[i] = outcome;
    debug?.push(
      run.debug({
        type: "task_result",
        step: superstep,
        taskId: runnable.id,
        node,
        timestamp: run.spec.clock.now(),
        status: outcome.kind === "done" ? "done" : outcome.kind === "error" ? "error" : "interrupted",
        ...(outcome.kind === "error" ? { error: String((outcome.error as Error)?.message ?? outcome.error) } : {}),
      }),
    );
    // Recorded so a re-run of the step skips this task; without a saver there is no re-run.
    if (many && run.saver && outcome.kind === "done") {
      await run.writer.writes(state, runnable.id, [[WRITE.result, encodeResult(outcome)]]);
    }
  };
  let all: Promise<unknown>;
  if (!many) all = runOne(0);
  else if (run.config.maxConcurrency >= tasks.length) {
    // All at once: no pool of workers, so one async frame less stays alive per task of a wide step.
    all = Promise.all(tasks.map((_, i) => runOne(i)));
  } else {
    const limit = run.config.maxConcurrency;
    let cursor = 0;
    const worker = async () => {
      while (cursor < tasks.length) await runOne(cursor++);
    };
    all = Promise.all(Array.from({ length: limit }, worker));
  }
  await raceAbort(all, run.signal);
  return outcomes;
}

/**
 * A step's tasks with nothing to do around each (no debug events, no spans, no result to record): each
 * task's outcome promise is awaited as it is, with no async frame per task — in a wide step, every
 * frame is kept alive until the step ends, and the scavenger copies them all.
 */
async function runPlainTasks(
  run: RunContext,
  tasks: PlannedStepTask[],
  env: TaskEnv,
  outcomes: TaskOutcome[],
): Promise<TaskOutcome[]> {
  const waiting: Promise<TaskOutcome>[] = [];
  const at: number[] = [];
  for (let i = 0; i < tasks.length; i++) {
    const task = tasks[i] as PlannedStepTask;
    const outcome = task.recorded ? decodeResult(task.recorded) : runTask(task.runnable, env);
    if (isThenable(outcome)) {
      waiting.push(outcome);
      at.push(i);
    } else {
      outcomes[i] = outcome;
    }
  }
  if (waiting.length > 0) {
    const settled = await raceAbort(Promise.all(waiting), run.signal);
    for (let k = 0; k < settled.length; k++) outcomes[at[k] as number] = settled[k] as TaskOutcome;
  } else if (run.signal.aborted) {
    throw run.signal.reason;
  }
  return outcomes;
}

function emitStep(run: RunContext, state: ThreadState, tasks: PlannedStepTask[], outcomes: TaskOutcome[]): void {
  const sink = run.sink;
  if (!sink) return;
  if (sink.modes.has("updates")) {
    for (let i = 0; i < tasks.length; i++) {
      const outcome = outcomes[i] as Extract<TaskOutcome, { kind: "done" }>;
      const node = (tasks[i] as PlannedStepTask).planned.node;
      run.push({ mode: "updates", namespace: run.nsPath, data: { [node]: outcome.update } });
    }
  }
  run.emitValues(state);
}
