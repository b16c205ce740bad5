import { durationText, type Waterfall } from "./run-waterfall.js";

/**
 * A run's timeline as a waterfall: one row per task (node, superstep), its bar placed by start and
 * width by duration, the duration, and the node's model tokens in the run.
 *
 * @example
 * <RunWaterfallView waterfall={runWaterfall(runs)} />
 */
export function RunWaterfallView({ waterfall }: { waterfall: Waterfall }) {
  const n = (x: number) => x.toLocaleString("en-US");
  return (
    <section class="panel waterfall" data-testid="waterfall">
      <h3>Run timeline</h3>
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
    </section>
  );
}
