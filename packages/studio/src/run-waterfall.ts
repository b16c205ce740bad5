import type { ApiRunTimeline } from "@trellis/protocol";
import type { Run } from "./api-types.js";

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
  /** The node's model tokens in this run, on the node's first row; `tasks` is how many rows share them. */
  tokens?: { total: number; calls: number; tasks: number };
}

/** A run's waterfall: its tasks from the first start to the last end. */
export interface Waterfall {
  runId: string;
  status: string;
  spanMs: number;
  rows: WaterfallRow[];
  /** Tasks the server left out of the timeline (past its limit). */
  omitted: number;
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
 * that has one; undefined when none has.
 *
 * @example
 * const w = runWaterfall(await api.runs(threadId));
 * w?.rows.map((r) => `${r.node} ${r.durationMs} ms`);
 */
export function runWaterfall(runs: readonly Run[], runId?: string): Waterfall | undefined {
  const timed = timedRuns(runs);
  const run = timed.find((r) => r.run_id === runId) ?? timed[0];
  if (!run) return undefined;
  const tasks = (run.metadata.timeline as ApiRunTimeline).tasks;
  if (tasks.length === 0) return undefined;
  const starts = tasks.map((t) => Date.parse(t.started_at));
  const ends = tasks.map((t, i) => (t.ended_at ? Date.parse(t.ended_at) : (starts[i] as number)));
  const start = Math.min(...starts);
  const spanMs = Math.max(...ends, ...starts) - start;
  const pct = (ms: number) => (spanMs > 0 ? (ms / spanMs) * 100 : 0);
  const byNode = ((run.metadata.usage as { by_node?: Record<string, WireCounts> } | undefined)?.by_node ??
    {}) as Record<string, WireCounts>;
  const counts = new Map<string, number>();
  for (const t of tasks) counts.set(t.node, (counts.get(t.node) ?? 0) + 1);
  const seen = new Set<string>();
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
    };
    if (t.error !== undefined) row.error = t.error;
    const usage = byNode[t.node];
    if (usage && !seen.has(t.node)) {
      seen.add(t.node);
      row.tokens = { total: usage.total_tokens ?? 0, calls: usage.calls ?? 0, tasks: counts.get(t.node) ?? 1 };
    }
    return row;
  });
  const omitted = (run.metadata.timeline as ApiRunTimeline).omitted ?? 0;
  return { runId: run.run_id, status: run.status, spanMs, rows, omitted };
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
