import type { RunLog } from "./run-log.js";
import { runEndText } from "./status-labels.js";

/**
 * The live log of a run: nodes starting and finishing, streamed tokens, the keys each node wrote, and
 * errors in plain words.
 *
 * @example
 * <RunLogView log={log} streaming />
 */
export function RunLogView({ log, streaming }: { log: RunLog | undefined; streaming: boolean }) {
  return (
    <section class="panel run-log" data-testid="run-log">
      <h3>
        Live run {streaming ? <span class="spinner" role="status" aria-label="running" /> : null}
        {log?.runId ? <small> {log.runId}</small> : null}
      </h3>
      {!log ? <p class="muted">No run watched yet in this session.</p> : null}
      <ul>
        {(log?.entries ?? []).map((e, i) => (
          <li key={i} class={`entry ${e.kind} ${"status" in e ? e.status : ""}`}>
            {e.kind === "node" ? (
              <span>
                {e.status === "started" ? "▸" : e.status === "done" ? "✓" : e.status === "interrupted" ? "‖" : "✗"}{" "}
                <b>{e.node}</b>
                {e.error ? `: ${e.error}` : ""}
              </span>
            ) : e.kind === "tokens" ? (
              <pre class="tokens">{e.text}</pre>
            ) : e.kind === "update" ? (
              <span class="muted">
                {e.node} wrote {e.keys.join(", ") || "nothing"}
              </span>
            ) : (
              <span>{e.text}</span>
            )}
          </li>
        ))}
      </ul>
      {log && !streaming && log.status !== "error" ? (
        <p class="muted" data-testid="run-end">
          {runEndText(log)}
        </p>
      ) : null}
    </section>
  );
}
