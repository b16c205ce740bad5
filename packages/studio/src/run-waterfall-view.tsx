import { durationText, type Waterfall } from "./run-waterfall.js";

/**
 * A run's timeline as a waterfall: one row per task (node, superstep), its bar placed by start and
 * width by duration, the duration, and the node's model tokens in the run.
 *
 * @example
 * <RunWaterfallView waterfall={runWaterfall(runs, picked)} runs={timedRuns(runs)} onPick={setPicked} />
 */
export function RunWaterfallView({
  waterfall,
  runs = [],
  onPick,
}: {
  waterfall: Waterfall;
  /** The thread's runs with a timeline, newest first: a picker when there are several. */
  runs?: ReadonlyArray<{ run_id: string; created_at: string; status: string }>;
  onPick?(runId: string): void;
}) {
  const n = (x: number) => x.toLocaleString("en-US");
  return (
    <section class="panel waterfall" data-testid="waterfall">
      <h3>Run timeline</h3>
      {runs.length > 1 && onPick ? (
        <select
          data-testid="waterfall-run"
          value={waterfall.runId}
          onChange={(e) => onPick((e.currentTarget as HTMLSelectElement).value)}
        >
          {runs.map((r, i) => (
            <option key={r.run_id} value={r.run_id}>
              {i === 0 ? "latest · " : ""}
              {new Date(r.created_at).toLocaleTimeString()} · {r.status} · {r.run_id.slice(0, 8)}
            </option>
          ))}
        </select>
      ) : null}
      <p class="muted">
        Run <code>{waterfall.runId.slice(0, 8)}</code> · {waterfall.status} · {waterfall.rows.length} task
        {waterfall.rows.length === 1 ? "" : "s"} over {durationText(waterfall.spanMs)}
      </p>
      <ol class="waterfall-rows">
        {waterfall.rows.map((r) => (
          <li
            key={r.taskId}
            class={`waterfall-row ${r.status}`}
            data-testid="waterfall-row"
            data-node={r.node}
            title={r.error ?? `${r.node} · step ${r.step} · ${r.taskId}`}
          >
            <span class="waterfall-node">
              {r.node} <span class="muted">#{r.step}</span>
            </span>
            <span class="waterfall-track">
              <span class="waterfall-bar" style={{ left: `${r.offsetPct}%`, width: `max(2px, ${r.widthPct}%)` }} />
            </span>
            <span class="waterfall-meta">
              {durationText(r.durationMs)}
              {r.status === "error" ? " · failed" : r.status === "interrupted" ? " · paused" : ""}
              {r.tokens ? ` · ${n(r.tokens.total)} tok${r.tokens.tasks > 1 ? ` (${r.tokens.tasks} tasks)` : ""}` : ""}
            </span>
          </li>
        ))}
      </ol>
      {waterfall.omitted > 0 ? (
        <p class="muted">… and {n(waterfall.omitted)} more tasks, past the server's timeline limit</p>
      ) : null}
    </section>
  );
}
