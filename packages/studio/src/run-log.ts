import type { SseEvent } from "./api-types.js";

/** One line of a live run's log. */
export type LogEntry =
  | { kind: "node"; node: string; status: "started" | "done" | "interrupted" | "error"; error?: string }
  | { kind: "tokens"; node: string; text: string }
  | { kind: "update"; node: string; keys: string[] }
  | { kind: "info"; text: string }
  | { kind: "error"; text: string };

/** What the studio knows about a run it is watching. */
export interface RunLog {
  runId: string | undefined;
  status: "running" | "ended" | "error";
  entries: LogEntry[];
  /** Nodes with a task running now. */
  active: string[];
  /** Nodes that finished at least once in this run. */
  visited: string[];
  /** The last full state seen (`values` events). */
  values: Record<string, unknown> | undefined;
}

/** A log before the first event. */
export function emptyLog(): RunLog {
  return { runId: undefined, status: "running", entries: [], active: [], visited: [], values: undefined };
}

/**
 * Folds one server-sent event into the log (pure: returns a new log). Subgraph events (`mode|ns`)
 * count for the parent node only through its own task events.
 *
 * @example
 * let log = emptyLog();
 * log = reduceEvent(log, { id: "2", event: "debug", data: { type: "task", node: "write", step: 0, taskId: "t" } });
 * log.active; // ["write"]
 */
export function reduceEvent(log: RunLog, e: SseEvent): RunLog {
  const [mode, ns] = e.event.split("|");
  const sub = ns !== undefined;
  const data = e.data as Record<string, unknown> | unknown[] | null;
  if (mode === "metadata") return { ...log, runId: (data as { run_id?: string })?.run_id ?? log.runId };
  if (mode === "error") {
    const d = data as { message?: string; error?: string } | null;
    return { ...log, status: "error", active: [], entries: [...log.entries, { kind: "error", text: errorText(d) }] };
  }
  if (mode === "end") return { ...log, status: log.status === "error" ? "error" : "ended", active: [] };
  if (mode === "values" && !sub) return { ...log, values: data as Record<string, unknown> };
  if (mode === "debug" && !sub) return reduceDebug(log, data as Record<string, unknown>);
  if (mode === "updates" && !sub && data && typeof data === "object" && !Array.isArray(data)) {
    const entries = [...log.entries];
    for (const [node, update] of Object.entries(data)) {
      if (node === "__interrupt__") continue;
      const keys = update && typeof update === "object" ? Object.keys(update) : [];
      entries.push({ kind: "update", node, keys });
    }
    return { ...log, entries };
  }
  if (mode === "messages" && Array.isArray(data)) return reduceToken(log, data);
  return log;
}

function errorText(d: { message?: string; error?: string } | null): string {
  if (!d) return "The run failed.";
  return d.error && d.message ? `${d.message} (${d.error})` : (d.message ?? d.error ?? "The run failed.");
}

function reduceDebug(log: RunLog, d: Record<string, unknown>): RunLog {
  const node = String(d.node ?? "");
  if (d.type === "task") {
    return {
      ...log,
      active: [...log.active, node],
      entries: [...log.entries, { kind: "node", node, status: "started" }],
    };
  }
  if (d.type === "task_result") {
    const i = log.active.indexOf(node);
    const active = i >= 0 ? [...log.active.slice(0, i), ...log.active.slice(i + 1)] : log.active;
    const status = d.status === "error" ? "error" : d.status === "interrupted" ? "interrupted" : "done";
    const entry: LogEntry = { kind: "node", node, status };
    if (typeof d.error === "string") entry.error = d.error;
    const visited = log.visited.includes(node) ? log.visited : [...log.visited, node];
    return { ...log, active, visited, entries: [...log.entries, entry] };
  }
  return log;
}

function reduceToken(log: RunLog, data: unknown[]): RunLog {
  const [chunk, meta] = data as [{ type?: string; content?: unknown }, { langgraph_node?: string; node?: string }];
  if (chunk?.type !== "AIMessageChunk" || typeof chunk.content !== "string" || chunk.content === "") return log;
  const node = meta?.langgraph_node ?? meta?.node ?? "";
  const last = log.entries.at(-1);
  if (last?.kind === "tokens" && last.node === node) {
    return { ...log, entries: [...log.entries.slice(0, -1), { ...last, text: last.text + chunk.content }] };
  }
  return { ...log, entries: [...log.entries, { kind: "tokens", node, text: chunk.content }] };
}
