import type { PlannedTask } from "@trellis/checkpoint";
import { GraphRecursionError } from "../errors.js";
import type { Interrupt } from "./command.js";
import { pendingInterrupts } from "./resume.js";
import type { RunContext } from "./run-context.js";
import type { ThreadState } from "./thread-state.js";
import type { RunUsage } from "./usage.js";

/**
 * Most tasks one superstep may run. recursionLimit stops a run that goes on too long; a Send fan-out
 * that multiplies every step (each task sending several more) would exhaust memory long before that,
 * so a plan wider than this fails with GRAPH_RECURSION instead. @internal
 */
export const MAX_TASKS_PER_STEP = 100_000;

/**
 * How a run stopped, when it did not fail.
 *
 * @example
 * const events = graph.streamEvents(input, { threadId });
 * for await (const e of events) forward(e); // the run starts on the first read
 * const outcome: RunOutcome = await events.outcome;
 * if (outcome.status === "interrupted") console.log(outcome.interrupts, outcome.next);
 */
export interface RunOutcome {
  status: "done" | "interrupted";
  values: Record<string, unknown>;
  /** Interrupts waiting for an answer (empty when paused at a static breakpoint). */
  interrupts: Interrupt[];
  /** Nodes of the next superstep. */
  next: string[];
  checkpointId: string | undefined;
  /** Tokens the run's model calls used, per node and per model; absent when it made none. */
  usage?: RunUsage;
}

/** The run's result as it stands at `state`. @internal */
export function outcomeOf(run: RunContext, state: ThreadState, status: RunOutcome["status"]): RunOutcome {
  return {
    status,
    values: state.values,
    interrupts: status === "interrupted" ? pendingInterrupts(state.pending).map(({ taskId: _t, ...i }) => i) : [],
    next: state.checkpoint.next.map((p) => p.node),
    checkpointId: run.saver ? state.checkpoint.id : undefined,
  };
}

/** Whether a breakpoint (compiled or per run) stops before or after one of `plan`'s nodes. @internal */
export function breaks(
  compiled: ReadonlySet<string> | "*",
  perRun: readonly string[] | "*" | undefined,
  plan: readonly PlannedTask[],
): boolean {
  if (compiled === "*" || perRun === "*") return true;
  if (compiled.size === 0 && !perRun?.length) return false;
  return plan.some((p) => compiled.has(p.node) || perRun?.includes(p.node));
}

/**
 * Whether the head holds a pause its run had reached: an unanswered interrupt, or a breakpoint after
 * the nodes that wrote it. @internal
 */
export function reachedPause(run: RunContext, state: ThreadState): boolean {
  if (pendingInterrupts(state.pending).length > 0) return true;
  const meta = state.checkpoint.metadata;
  const ran = meta.source === "loop" ? Object.keys(meta.writes ?? {}).map((node) => ({ node })) : [];
  return ran.length > 0 && breaks(run.spec.interruptAfter, run.config.interruptAfter, ran);
}

/** recursionLimit bounds how deep a run goes; this bounds how wide one superstep may get. @internal */
export function breadthError(run: RunContext, plan: readonly PlannedTask[], superstep: number): GraphRecursionError {
  const byNode = new Map<string, number>();
  for (const p of plan) byNode.set(p.node, (byNode.get(p.node) ?? 0) + 1);
  const widest = [...byNode].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return new GraphRecursionError(
    `Graph "${run.spec.name}" planned ${plan.length} tasks for superstep ${superstep}, more than the ${MAX_TASKS_PER_STEP} one superstep may run: ${widest.map(([n, c]) => `"${n}" ×${c}`).join(", ")}. A Send fan-out that grows every step never ends; bound it.`,
    { tasks: plan.length, limit: MAX_TASKS_PER_STEP, looping: widest.map(([n]) => n) },
  );
}

/** The error of a run past its recursion limit, naming the nodes that kept running. @internal */
export function recursionError(run: RunContext, counts: Map<string, number>): GraphRecursionError {
  const looping = [...counts].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1]);
  const names = looping.map(([node, n]) => `"${node}" (${n}×)`).join(", ");
  return new GraphRecursionError(
    `Graph "${run.spec.name}" reached its recursion limit of ${run.config.recursionLimit} supersteps without finishing. ${names ? `Nodes that kept running: ${names}. ` : ""}Check the condition that should end the loop, or raise recursionLimit in the run config.`,
    { limit: run.config.recursionLimit, looping: looping.map(([node]) => node) },
  );
}
