import type { ApiRunTimeline } from "@trellis/protocol";
import type { Run, ThreadState } from "./api-types.js";
import type { RunLog } from "./run-log.js";

/**
 * What a person calls a run's end. The Agent Server API (as LangGraph's) says `success` for a run
 * that stopped at a pause, since nothing failed; the studio says `paused` when a task of the run
 * ended interrupted (its `metadata.timeline`) or, for the thread's latest run, when the thread waits
 * now (`pausedNow`: a static breakpoint leaves no interrupted task), and the API's word otherwise.
 *
 * @example
 * runStatusLabel(run); // "paused" for a run that stopped at twi-author's review
 */
export function runStatusLabel(run: Pick<Run, "status" | "metadata">, pausedNow = false): string {
  if (run.status !== "success") return run.status;
  if (pausedNow) return "paused";
  const timeline = run.metadata?.timeline as ApiRunTimeline | undefined;
  const paused = Array.isArray(timeline?.tasks) && timeline.tasks.some((t) => t.interrupted === true);
  return paused ? "paused" : run.status;
}

/**
 * What a person calls a thread's status: `paused` for the API's `interrupted` (waiting for an answer
 * or at a breakpoint), the API's word otherwise.
 *
 * @example
 * threadStatusLabel("interrupted"); // "paused"
 */
export function threadStatusLabel(status: string): string {
  return status === "interrupted" ? "paused" : status;
}

/**
 * Where a paused thread waits, in words: `in review` for an `interrupt()` raised inside a node (the
 * node of the task holding it), `before deploy` for a static breakpoint (no interrupt pending: the
 * next nodes have not started).
 *
 * @example
 * pausePlace(state); // "in review"
 */
export function pausePlace(state: Pick<ThreadState, "next" | "tasks" | "interrupts">): string {
  const inside = [...new Set(state.tasks.filter((t) => t.interrupts.length > 0).map((t) => t.name))];
  if (inside.length > 0) return `in ${inside.join(", ")}`;
  if (state.interrupts.length > 0) return "in a task";
  return state.next.length > 0 ? `before ${state.next.join(", ")}` : "";
}

/**
 * The line under a watched run's log once it stopped: whether it paused (a task ended interrupted
 * and nothing failed) or ended.
 *
 * @example
 * runEndText(log); // "Run paused: waiting for you."
 */
export function runEndText(log: RunLog): string {
  let paused = false;
  for (const e of log.entries) if (e.kind === "node" && e.status !== "started") paused = e.status === "interrupted";
  return paused ? "Run paused: waiting for you." : "Run ended.";
}
