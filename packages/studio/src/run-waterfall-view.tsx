import { Fragment } from "preact";
import type { Run } from "./api-types.js";
import { durationText, type Waterfall, type WaterfallCallRow } from "./run-waterfall.js";
import { runStatusLabel } from "./status-labels.js";

const n = (x: number) => x.toLocaleString("en-US");

/** A model or tool call's row, under its task's: the model or tool, its bar, duration, tokens, end. */
function CallRow({ call }: { call: WaterfallCallRow }) {
  const model = call.kind === "model";
  return (
    <li
      class={`waterfall-row waterfall-call ${call.kind} ${call.status}`}
      data-testid="waterfall-call"
      data-kind={call.kind}
      title={call.node ? `${call.label} · called by ${call.node}` : call.label}
    >
      <span class="waterfall-node">
        <span class="muted">{model ? "model" : "tool"}</span> {call.label}
      </span>
      <span class="waterfall-track">
        <span class="waterfall-bar" style={{ left: `${call.offsetPct}%`, width: `max(2px, ${call.widthPct}%)` }} />
      </span>
      <span class="waterfall-meta">
        {durationText(call.durationMs)}
        {call.tokens ? ` · ${n(call.tokens.input)} in · ${n(call.tokens.output)} out` : ""}
        {call.finishReason ? ` · ${call.finishReason}` : ""}
        {call.status === "error" ? " · failed" : call.status === "interrupted" ? " · paused" : ""}
      </span>
    </li>
  );
}

/**
 * A run's timeline as a waterfall: one row per task (node, superstep), its bar placed by start and
 * width by duration, the duration, and its model tokens; under it a row per model call (model,
 * duration, tokens in and out, finish reason) and per tool call (tool, duration, failed or paused).
 *
 * @example
 * <RunWaterfallView waterfall={runWaterfall(runs, picked)} runs={timedRuns(runs)} onPick={setPicked} />
 */
export function RunWaterfallView({
  waterfall,
  runs = [],
  onPick,
  threadPaused = false,
}: {
  waterfall: Waterfall;
  /** The thread waits now: its newest run is labelled paused. */
  threadPaused?: boolean;
  /** The thread's runs with a timeline, newest first: a picker when there are several. */
  runs?: ReadonlyArray<Pick<Run, "run_id" | "created_at" | "status" | "metadata">>;
  onPick?(runId: string): void;
}) {
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
              {new Date(r.created_at).toLocaleTimeString()} · {runStatusLabel(r, threadPaused && i === 0)} ·{" "}
              {r.run_id.slice(0, 8)}
            </option>
          ))}
        </select>
      ) : null}
      <p class="muted">
        Run <code>{waterfall.runId.slice(0, 8)}</code> · <span data-testid="waterfall-status">{waterfall.status}</span>{" "}
        · {waterfall.rows.length} task
        {waterfall.rows.length === 1 ? "" : "s"} over {durationText(waterfall.spanMs)}
      </p>
      <ol class="waterfall-rows">
        {waterfall.rows.map((r) => (
          <Fragment key={r.taskId}>
            <li
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
            {r.calls.map((c, i) => (
              <CallRow key={`${r.taskId}-${i}`} call={c} />
            ))}
          </Fragment>
        ))}
      </ol>
      {waterfall.omitted > 0 ? (
        <p class="muted">… and {n(waterfall.omitted)} more tasks, past the server's timeline limit</p>
      ) : null}
      {waterfall.omittedCalls > 0 ? (
        <p class="muted">… and {n(waterfall.omittedCalls)} more model and tool calls, not listed</p>
      ) : null}
    </section>
  );
}
