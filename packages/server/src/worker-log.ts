/** One line of a worker's log: what happened, to which run, and anything else worth reading. */
export interface LogEntry {
  level: "info" | "warn" | "error";
  /** What happened: `claim`, `finish`, `requeue`, `thread-repaired`, `lease-lost`, `fenced`, `release`, `sweep`, `error`… */
  event: string;
  [field: string]: unknown;
}

/** Where a run manager's log lines go. */
export type Logger = (entry: LogEntry) => void;

/**
 * A logger writing each entry as one JSON line (`{"ts":…,"level":…,"event":…,"worker":…}`): info to
 * stdout, warnings and errors to stderr. `quiet` drops info lines (an embedded server logs only what
 * went wrong).
 *
 * @example
 * const log = jsonLogger({ worker: manager.workerId });
 * log({ level: "info", event: "claim", runId, attempt: 2 });
 */
export function jsonLogger(fields: Record<string, unknown> = {}, options: { quiet?: boolean } = {}): Logger {
  return (entry) => {
    if (options.quiet && entry.level === "info") return;
    const line = JSON.stringify({ ts: new Date().toISOString(), ...fields, ...entry }, errorFields);
    (entry.level === "info" ? process.stdout : process.stderr).write(`${line}\n`);
  };
}

function errorFields(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code !== undefined ? { code } : {}) };
  }
  return value;
}
