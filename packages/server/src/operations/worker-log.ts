import { TrellisError } from "@trellis/checkpoint";

/** How much a log line matters, least first. */
export type LogLevel = "debug" | "info" | "warn" | "error";

/** One line of a worker's log: what happened, to which run, and anything else worth reading. */
export interface LogEntry {
  level: LogLevel;
  /**
   * What happened: `claim` (a run's attempt starts), `finish` (it ended: `status`, and `code` and
   * `message` when it failed), `release`, `requeue`, `thread-repaired`, `lease-lost`, `fenced`,
   * `sweep`, `run-failed`, `claim-failed`, `heartbeat-failed`… Lines about a run carry `runId`,
   * `threadId`, `attempt` and, when the run is traced, `traceId`.
   */
  event: string;
  [field: string]: unknown;
}

/** Where a run manager's log lines go. */
export type Logger = (entry: LogEntry) => void;

const RANK: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Drops info lines (an embedded server logs only what went wrong). `TRELLIS_LOG_LEVEL` wins. */
  quiet?: boolean;
  /** Least level written; default `TRELLIS_LOG_LEVEL`, else `warn` when quiet, else `info`. */
  level?: LogLevel | "silent";
  /** `json` (one object a line) or `pretty` (for people); default `TRELLIS_LOG_FORMAT`, else pretty on a TTY. */
  format?: "json" | "pretty";
  /** Where lines go (info and below to `stdout`, warnings and errors to `stderr`). Default the process's. */
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
  /** Read for `TRELLIS_LOG_LEVEL` and `TRELLIS_LOG_FORMAT`. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The level `TRELLIS_LOG_LEVEL` names; a value it does not know is refused with what it accepts. */
export function logLevelFrom(env: Readonly<Record<string, string | undefined>>): LogLevel | "silent" | undefined {
  const raw = env.TRELLIS_LOG_LEVEL?.trim().toLowerCase();
  if (!raw) return undefined;
  if (raw in RANK) return raw as LogLevel | "silent";
  throw new TrellisError(
    "INVALID_CONFIG",
    `TRELLIS_LOG_LEVEL is "${env.TRELLIS_LOG_LEVEL}"; use one of debug, info, warn, error, silent.`,
  );
}

/**
 * A logger writing each entry as one line: JSON (`{"ts":…,"level":…,"event":…,"worker":…}`) for log
 * collectors, or a readable line on a terminal. Info and debug go to stdout, warnings and errors to
 * stderr. `TRELLIS_LOG_LEVEL` (debug, info, warn, error, silent) sets the least level written;
 * `TRELLIS_LOG_FORMAT` (json, pretty) the format.
 *
 * @example
 * const log = jsonLogger({ worker: manager.workerId });
 * log({ level: "info", event: "claim", runId, threadId, attempt: 2 });
 */
export function jsonLogger(fields: Record<string, unknown> = {}, options: JsonLoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const least = RANK[options.level ?? logLevelFrom(env) ?? (options.quiet ? "warn" : "info")];
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const formatEnv = env.TRELLIS_LOG_FORMAT?.trim().toLowerCase();
  const pretty =
    (options.format ?? (formatEnv === "json" || formatEnv === "pretty" ? formatEnv : undefined)) === "pretty" ||
    (options.format === undefined && formatEnv === undefined && stdout.isTTY === true);
  return (entry) => {
    if ((RANK[entry.level] ?? RANK.info) < least) return;
    const record = { ts: new Date().toISOString(), ...fields, ...entry };
    const line = pretty ? prettyLine(record) : JSON.stringify(record, errorFields);
    (RANK[entry.level] >= RANK.warn ? stderr : stdout).write(`${line}\n`);
  };
}

const COLOR: Record<string, string> = { debug: "\x1b[2m", info: "\x1b[36m", warn: "\x1b[33m", error: "\x1b[31m" };

/** `12:03:04.123 INFO  finish runId=… status=success ms=42` */
function prettyLine(record: Record<string, unknown>): string {
  const { ts, level, event, ...rest } = record;
  const time = String(ts).slice(11, 23);
  const lvl = String(level);
  const pairs = Object.entries(rest).map(([k, v]) => {
    const value = errorFields(k, v);
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return `${k}=${/\s/.test(text) ? JSON.stringify(text) : text}`;
  });
  return `${time} ${COLOR[lvl] ?? ""}${lvl.toUpperCase().padEnd(5)}\x1b[0m ${String(event)} ${pairs.join(" ")}`.trimEnd();
}

function errorFields(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code !== undefined ? { code } : {}) };
  }
  return value;
}
