import type { StreamEvent } from "@trellis/core";
import type { ApiRunTimeline, ApiTimelineTask } from "@trellis/protocol";
import type { RunRecord } from "./run-store.js";

/** A task of a run's `metadata.timeline` (`ApiTimelineTask` of `@trellis/protocol`). */
export type WireTimelineTask = ApiTimelineTask;
/** A run's `metadata.timeline` (`ApiRunTimeline` of `@trellis/protocol`). */
export type WireTimeline = ApiRunTimeline;

/** How many tasks a run's timeline keeps: a run's record stays small whatever the graph's loops. */
export const MAX_TIMELINE_TASKS = 1_000;

/**
 * Collects the timeline of a run's attempt from the core's `debug` events the executor already reads
 * (task start and task result of the root graph), with the server's clock when each is seen.
 * @internal
 */
export class RunTimeline {
  readonly #tasks: WireTimelineTask[] = [];
  readonly #open = new Map<string, { task: WireTimelineTask; at: number }>();
  readonly #max: number;
  #omitted = 0;

  /** `maxTasks`: the tasks kept (the first ones); the rest are counted in `omitted`. */
  constructor(maxTasks = MAX_TIMELINE_TASKS) {
    this.#max = maxTasks;
  }

  /** Notes a core event; anything but a root task's start or result is ignored. */
  see(e: StreamEvent): void {
    if (e.mode !== "debug" || e.namespace.length > 0) return;
    const d = e.data;
    const now = Date.now();
    if (d.type === "task") {
      if (this.#tasks.length >= this.#max) {
        this.#omitted++;
        return;
      }
      const task: WireTimelineTask = {
        node: d.node,
        task_id: d.taskId,
        step: d.step,
        started_at: new Date(now).toISOString(),
        ended_at: null,
        duration_ms: null,
      };
      this.#tasks.push(task);
      this.#open.set(d.taskId, { task, at: now });
    } else if (d.type === "task_result") {
      const open = this.#open.get(d.taskId);
      if (!open) return;
      this.#open.delete(d.taskId);
      open.task.ended_at = new Date(now).toISOString();
      open.task.duration_ms = now - open.at;
      if (d.status === "error") open.task.error = d.error ?? "error";
      if (d.status === "interrupted") open.task.interrupted = true;
    }
  }

  /** The tasks kept so far (the wire shape). */
  get tasks(): readonly WireTimelineTask[] {
    return this.#tasks;
  }

  /**
   * Sets the run's `metadata.timeline` (after the tasks of its earlier attempts, if any); the caller
   * stores the metadata. Returns whether it changed.
   */
  addTo(run: RunRecord): boolean {
    if (this.#tasks.length === 0) return false;
    const earlier = run.metadata?.timeline as WireTimeline | undefined;
    const tasks = Array.isArray(earlier?.tasks) ? [...earlier.tasks, ...this.#tasks] : [...this.#tasks];
    const omitted = (earlier?.omitted ?? 0) + this.#omitted;
    const timeline: WireTimeline = omitted > 0 ? { tasks, omitted } : { tasks };
    run.metadata = { ...run.metadata, timeline };
    return true;
  }
}
