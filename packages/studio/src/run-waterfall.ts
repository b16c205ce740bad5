import type { ApiRunTimeline, ApiTimelineCall, ApiTimelineTask } from "@trellis/protocol";
import type { Run } from "./api-types.js";
import { runStatusLabel } from "./status-labels.js";

/** One bar of a run's waterfall: a task, placed by when it started and how long it took. */
export interface WaterfallRow {
  node: string;
  taskId: string;
  step: number;
  /** Where the bar starts, in percent of the run's span. */
  offsetPct: number;
  /** How wide the bar is, in percent of the run's span (a task that never ended reaches the end). */
  widthPct: number;
  durationMs: number | null;
  status: "done" | "error" | "interrupted" | "unfinished";
  error?: string;
  /**
   * The task's model tokens: the sum of its model calls when the timeline lists calls; else (an older
   * run's timeline) the node's tokens in the run, on the node's first row, `tasks` rows sharing them.
   */
  tokens?: { total: number; calls: number; tasks: number };
  /** The task's model and tool calls, by start: child rows under the task's. */
  calls: WaterfallCallRow[];
}

/** A model or tool call under its task's row. */
export interface WaterfallCallRow {
  kind: "model" | "tool";
  /** The model (with its provider) or the tool. */
  label: string;
  /** The node that made the call when it is not the task's own (a subgraph's). */
  node?: string;
  offsetPct: number;
  widthPct: number;
  durationMs: number | null;
  /** A model call's tokens and why it finished. */
  tokens?: { input: number; output: number; total: number };
  finishReason?: string;
  /** A tool call's end: `error` when the tool failed, `interrupted` when it paused the run. */
  status: "ok" | "error" | "interrupted";
}

/** A run's waterfall: its tasks from the first start to the last end. */
export interface Waterfall {
  runId: string;
  status: string;
  spanMs: number;
  rows: WaterfallRow[];
  /** Tasks the server left out of the timeline (past its limit). */
  omitted: number;
  /** Calls the server left out of the timeline (past its limit, or outside any task). */
  omittedCalls: number;
}

interface WireCounts {
  total_tokens?: number;
  calls?: number;
}

/**
 * The runs listed that have a `metadata.timeline`, newest first.
 *
 * @example
 * timedRuns(await api.runs(threadId)).map((r) => r.run_id);
 */
export function timedRuns(runs: readonly Run[]): Run[] {
  return runs
    .filter((r) => Array.isArray((r.metadata?.timeline as ApiRunTimeline | undefined)?.tasks))
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
}

/**
 * The waterfall of run `runId` if given and listed with a `metadata.timeline`, else of the newest run
 * that has one; undefined when none has. `threadPaused`: the thread waits now (its newest run paused).
 *
 * @example
 * const w = runWaterfall(await api.runs(threadId));
 * w?.rows.map((r) => `${r.node} ${r.durationMs} ms`);
 */
export function runWaterfall(runs: readonly Run[], runId?: string, threadPaused = false): Waterfall | undefined {
  const timed = timedRuns(runs);
  const run = timed.find((r) => r.run_id === runId) ?? timed[0];
  if (!run) return undefined;
  const timeline = run.metadata.timeline as ApiRunTimeline;
  const tasks = timeline.tasks;
  if (tasks.length === 0) return undefined;
  const starts = tasks.map((t) => Date.parse(t.started_at));
  const ends = tasks.map((t, i) => (t.ended_at ? Date.parse(t.ended_at) : (starts[i] as number)));
  const calls = tasks.flatMap((t) => t.calls ?? []);
  const callStarts = calls.map((c) => Date.parse(c.started_at));
  const callEnds = calls.map((c, i) => (callStarts[i] as number) + (c.duration_ms ?? 0));
  const start = Math.min(...starts, ...callStarts);
  const spanMs = Math.max(...ends, ...starts, ...callEnds) - start;
  const pct = (ms: number) => (spanMs > 0 ? (ms / spanMs) * 100 : 0);
  const byNode = ((run.metadata.usage as { by_node?: Record<string, WireCounts> } | undefined)?.by_node ??
    {}) as Record<string, WireCounts>;
  const counts = new Map<string, number>();
  for (const t of tasks) counts.set(t.node, (counts.get(t.node) ?? 0) + 1);
  const seen = new Set<string>();
  const listsCalls = calls.length > 0;
  const callRow = (c: ApiTimelineCall): WaterfallCallRow => {
    const offset = Date.parse(c.started_at) - start;
    const row: WaterfallCallRow = {
      kind: c.kind,
      label: c.kind === "model" ? (c.provider ? `${c.provider}:${c.model}` : c.model) : c.tool,
      offsetPct: pct(offset),
      widthPct: pct(c.duration_ms ?? 0),
      durationMs: c.duration_ms,
      status: c.kind === "tool" ? c.status : "ok",
    };
    if (c.node !== undefined) row.node = c.node;
    if (c.kind === "model") {
      row.tokens = { input: c.input_tokens, output: c.output_tokens, total: c.total_tokens };
      if (c.finish_reason !== undefined) row.finishReason = c.finish_reason;
    }
    return row;
  };
  const rows = tasks.map((t, i): WaterfallRow => {
    const offset = (starts[i] as number) - start;
    const ended = t.ended_at !== null;
    const row: WaterfallRow = {
      node: t.node,
      taskId: t.task_id,
      step: t.step,
      offsetPct: pct(offset),
      widthPct: ended ? pct((ends[i] as number) - (starts[i] as number)) : 100 - pct(offset),
      durationMs: t.duration_ms,
      status: t.error !== undefined ? "error" : t.interrupted ? "interrupted" : ended ? "done" : "unfinished",
      calls: (t.calls ?? []).map(callRow),
    };
    if (t.error !== undefined) row.error = t.error;
    if (listsCalls) {
      const tokens = taskTokens(t);
      if (tokens) row.tokens = tokens;
    } else {
      const usage = byNode[t.node];
      if (usage && !seen.has(t.node)) {
        seen.add(t.node);
        row.tokens = { total: usage.total_tokens ?? 0, calls: usage.calls ?? 0, tasks: counts.get(t.node) ?? 1 };
      }
    }
    return row;
  });
  return {
    runId: run.run_id,
    // the thread's pause now belongs to its newest run
    status: runStatusLabel(run, threadPaused && run === timed[0]),
    spanMs,
    rows,
    omitted: timeline.omitted ?? 0,
    omittedCalls: timeline.omitted_calls ?? 0,
  };
}

/** The tokens of a task's model calls; undefined when it made none. */
function taskTokens(task: ApiTimelineTask): { total: number; calls: number; tasks: number } | undefined {
  let total = 0;
  let calls = 0;
  for (const c of task.calls ?? []) {
    if (c.kind !== "model") continue;
    total += c.total_tokens;
    calls += 1;
  }
  return calls > 0 ? { total, calls, tasks: 1 } : undefined;
}

/**
 * A duration as the waterfall labels it.
 *
 * @example
 * durationText(1530); // "1.53 s"
 */
export function durationText(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${ms} ms`;
  return `${Number((ms / 1000).toPrecision(3))} s`;
}
