import type { LogEntry, Logger } from "./worker-log.js";

/**
 * Options of {@link rateLimitedLogger}.
 *
 * @example
 * const options: RateLimitOptions = { perWindow: 10, windowMs: 60_000, key: (e) => e.reason as string | undefined };
 */
export interface RateLimitOptions {
  /** The lines of one key written per window; the rest are counted. Default 10. */
  perWindow?: number;
  /** The window, in ms. Default 60 000 (a minute). */
  windowMs?: number;
  /** The key an entry is limited under; entries without one pass unlimited. Default: none is limited. */
  key: (entry: LogEntry) => string | undefined;
  /** The clock (ms). Default `Date.now`. */
  now?: () => number;
  /**
   * Writes the summary of a window when it ends, even if no line of its key comes after (an unref'd
   * timer). Default true; a test with a manual clock turns it off and calls `flush()`.
   */
  timers?: boolean;
}

/** A logger that limits some lines per key and window (see {@link rateLimitedLogger}). */
export interface RateLimitedLogger extends Logger {
  /** Writes the summary line of every key that has suppressed lines, now. */
  flush(): void;
}

interface Window {
  start: number;
  written: number;
  suppressed: number;
  /** The first suppressed entry: the summary names its event and reason. */
  sample: LogEntry | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Wraps a logger so a flood of lines of one kind (refused webhooks, say) cannot fill the log: at most
 * `perWindow` lines per key in each `windowMs`; the rest of the window's lines of that key are counted
 * and summed up in one `log-suppressed` line (`suppressed`, the `event` and `reason` they had, the
 * key, `windowMs`) when the window ends. Lines without a key pass as they are.
 *
 * @example
 * const log = rateLimitedLogger(jsonLogger({ app: "hooks" }), { key: (e) => (e.level === "warn" ? `${e.event}:${e.reason}` : undefined) });
 * log({ level: "warn", event: "webhook-refused", reason: "bad-signature", route: "/hook" });
 */
export function rateLimitedLogger(log: Logger, options: RateLimitOptions): RateLimitedLogger {
  const per = options.perWindow ?? 10;
  const windowMs = options.windowMs ?? 60_000;
  const now = options.now ?? Date.now;
  const timers = options.timers ?? true;
  const windows = new Map<string, Window>();

  const summarise = (key: string, w: Window) => {
    if (w.timer) clearTimeout(w.timer);
    w.timer = undefined;
    if (w.suppressed === 0) return;
    const sample = w.sample as LogEntry;
    log({
      level: sample.level,
      event: "log-suppressed",
      suppressed: w.suppressed,
      of: sample.event,
      ...(sample.reason !== undefined ? { reason: sample.reason } : {}),
      key,
      windowMs,
    });
    w.suppressed = 0;
    w.sample = undefined;
  };

  const limited = ((entry: LogEntry) => {
    const key = options.key(entry);
    if (key === undefined) return log(entry);
    const t = now();
    let w = windows.get(key);
    if (w && t - w.start >= windowMs) {
      summarise(key, w);
      windows.delete(key);
      w = undefined;
    }
    if (!w) {
      // the map holds only keys seen in the current window, so it stays as small as the set of reasons
      for (const [k, old] of windows) if (t - old.start >= windowMs && old.suppressed === 0) windows.delete(k);
      w = { start: t, written: 0, suppressed: 0, sample: undefined, timer: undefined };
      windows.set(key, w);
    }
    if (w.written < per) {
      w.written++;
      return log(entry);
    }
    w.suppressed++;
    w.sample ??= entry;
    if (timers && !w.timer) {
      const open = w;
      open.timer = setTimeout(() => summarise(key, open), Math.max(0, open.start + windowMs - t));
      open.timer.unref?.();
    }
  }) as RateLimitedLogger;
  limited.flush = () => {
    for (const [key, w] of windows) summarise(key, w);
  };
  return limited;
}

/**
 * The key that limits warnings and errors by what happened: the entry's `event` and its code (`code`,
 * `reason`, or the `code` of its `error`); other levels pass unlimited. What the server's own loggers
 * (the run manager's, the cron scheduler's, the retention sweeper's) are limited by.
 *
 * @example
 * const log = rateLimitedLogger(jsonLogger({}), { key: warningKey });
 */
export function warningKey(entry: LogEntry): string | undefined {
  if (entry.level !== "warn" && entry.level !== "error") return undefined;
  const error = entry.error as { code?: unknown } | undefined;
  const code = entry.code ?? entry.reason ?? (typeof error === "object" && error !== null ? error.code : undefined);
  return `${entry.event}:${String(code ?? "")}`;
}
