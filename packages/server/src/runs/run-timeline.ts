import type { CallReport, StreamEvent } from "@trellis/core";
import type { ApiRunTimeline, ApiTimelineCall, ApiTimelineTask } from "@trellis/protocol";
import type { RunRecord } from "../stores/run-store.js";

/** A task of a run's `metadata.timeline` (`ApiTimelineTask` of `@trellis/protocol`). */
export type WireTimelineTask = ApiTimelineTask;
/** A run's `metadata.timeline` (`ApiRunTimeline` of `@trellis/protocol`). */
export type WireTimeline = ApiRunTimeline;

/** How many tasks a run's timeline keeps: a run's record stays small whatever the graph's loops. */
export const MAX_TIMELINE_TASKS = 1_000;
/** How many model and tool calls a run's timeline keeps (over all its tasks). */
export const MAX_TIMELINE_CALLS = 2_000;

/**
 * Collects the timeline of a run's attempt from the core's `debug` events the executor already reads
 * (task start and task result of the root graph), with the times the core stamped on them, and the
 * model and tool calls its usage tally hears ({@link RunTimeline.call}), nested under the root task
 * they ran in.
 * @internal
 */
export class RunTimeline {
  readonly #tasks: WireTimelineTask[] = [];
  readonly #open = new Map<string, { task: WireTimelineTask; at: number }>();
  /** Calls heard before the executor read their task's start off the stream. */
  readonly #early = new Map<string, ApiTimelineCall[]>();
  readonly #max: number;
  readonly #maxCalls: number;
  #omitted = 0;
  #calls = 0;
  #omittedCalls = 0;

  /**
   * `maxTasks`: the tasks kept (the first ones), the rest counted in `omitted`; `maxCalls`: the calls
   * kept, the rest counted in `omitted_calls`.
   */
  constructor(maxTasks = MAX_TIMELINE_TASKS, maxCalls = MAX_TIMELINE_CALLS) {
    this.#max = maxTasks;
    this.#maxCalls = maxCalls;
  }

  /** Notes a model or tool call (a `UsageTally`'s `onCall`): under its root task, never its content. */
  call(c: CallReport): void {
    if (c.rootTaskId === undefined || this.#calls >= this.#maxCalls) {
      this.#omittedCalls++;
      return;
    }
    this.#calls++;
    const started_at = new Date(c.startedAt).toISOString();
    const node = c.node.includes("/") ? { node: c.node } : {};
    const call: ApiTimelineCall =
      c.kind === "model"
        ? {
            kind: "model",
            model: c.model,
            ...(c.provider !== "unknown" ? { provider: c.provider } : {}),
            ...node,
            started_at,
            duration_ms: c.durationMs,
            input_tokens: c.inputTokens,
            output_tokens: c.outputTokens,
            total_tokens: c.totalTokens,
            ...(c.finishReason !== undefined ? { finish_reason: c.finishReason } : {}),
          }
        : { kind: "tool", tool: c.tool, ...node, started_at, duration_ms: c.durationMs, status: c.status };
    const open = this.#open.get(c.rootTaskId);
    if (open) {
      open.task.calls ??= [];
      open.task.calls.push(call);
    } else {
      const early = this.#early.get(c.rootTaskId);
      if (early) early.push(call);
      else this.#early.set(c.rootTaskId, [call]);
    }
  }

  /** Notes a core event; anything but a root task's start or result is ignored. */
  see(e: StreamEvent): void {
    if (e.mode !== "debug" || e.namespace.length > 0) return;
    const d = e.data;
    // when the task started or ended, as the core stamped it; else when the event is read
    const now = d.type !== "checkpoint" && typeof d.timestamp === "number" ? d.timestamp : Date.now();
    if (d.type === "task") {
      const early = this.#early.get(d.taskId);
      this.#early.delete(d.taskId);
      if (this.#tasks.length >= this.#max) {
        this.#omitted++;
        this.#dropCalls(early);
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
      if (early) task.calls = early;
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

  #dropCalls(calls: readonly ApiTimelineCall[] | undefined): void {
    if (!calls) return;
    this.#calls -= calls.length;
    this.#omittedCalls += calls.length;
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
    // calls whose task never showed on the stream (a task left out, an attempt stopped first)
    for (const calls of this.#early.values()) this.#dropCalls(calls);
    this.#early.clear();
    for (const task of this.#tasks) task.calls?.sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
    const earlier = run.metadata?.timeline as WireTimeline | undefined;
    const tasks = Array.isArray(earlier?.tasks) ? [...earlier.tasks, ...this.#tasks] : [...this.#tasks];
    const omitted = (earlier?.omitted ?? 0) + this.#omitted;
    const omittedCalls = (earlier?.omitted_calls ?? 0) + this.#omittedCalls;
    const timeline: WireTimeline = { tasks };
    if (omitted > 0) timeline.omitted = omitted;
    if (omittedCalls > 0) timeline.omitted_calls = omittedCalls;
    run.metadata = { ...run.metadata, timeline };
    return true;
  }
}
