import type { StreamEvent } from "@trellis/core";
import type { RunRecord } from "./run-store.js";

/**
 * One task of a run as its `metadata.timeline` shows it: the node, the task id, the superstep, when the
 * server saw it start and end (ISO 8601), how long it took, and how it ended (`error` holds the error's
 * message; `interrupted` is true when the task paused).
 *
 * @example
 * const run = await client.runs.get(threadId, runId);
 * for (const t of (run.metadata.timeline as WireTimeline).tasks) console.log(t.node, t.duration_ms);
 */
export interface WireTimelineTask {
  node: string;
  task_id: string;
  step: number;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  error?: string;
  interrupted?: true;
}

/**
 * A run's timeline over the API (`metadata.timeline`): its root graph's tasks in the order they started,
 * over every attempt of the run.
 *
 * @example
 * (run.metadata.timeline as WireTimeline).tasks.length; // one per task the run ran
 */
export interface WireTimeline {
  tasks: WireTimelineTask[];
}

/**
 * Collects the timeline of a run's attempt from the core's `debug` events the executor already reads
 * (task start and task result of the root graph), with the server's clock when each is seen.
 * @internal
 */
export class RunTimeline {
  readonly #tasks: WireTimelineTask[] = [];
  readonly #open = new Map<string, { task: WireTimelineTask; at: number }>();

  /** Notes a core event; anything but a root task's start or result is ignored. */
  see(e: StreamEvent): void {
    if (e.mode !== "debug" || e.namespace.length > 0) return;
    const d = e.data;
    const now = Date.now();
    if (d.type === "task") {
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

  /** Whether any task was seen. */
  get empty(): boolean {
    return this.#tasks.length === 0;
  }

  /**
   * Sets the run's `metadata.timeline` (after the tasks of its earlier attempts, if any); the caller
   * stores the metadata. Returns whether it changed.
   */
  addTo(run: RunRecord): boolean {
    if (this.#tasks.length === 0) return false;
    const earlier = (run.metadata?.timeline as WireTimeline | undefined)?.tasks;
    const tasks = Array.isArray(earlier) ? [...earlier, ...this.#tasks] : [...this.#tasks];
    run.metadata = { ...run.metadata, timeline: { tasks } satisfies WireTimeline };
    return true;
  }
}
