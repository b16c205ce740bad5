/**
 * Where the app reports what it recovered from (Redis down, a failed model call). `console` fits.
 *
 * @example
 * const logger: Logger = { info: () => {}, warn: console.warn, error: console.error };
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * A logger that prefixes lines with the app's name and writes to the console.
 *
 * @example
 * consoleLogger.warn("Redis unreachable"); // [market-assistant] Redis unreachable
 */
export const consoleLogger: Logger = {
  info: (message) => console.info(`[market-assistant] ${message}`),
  warn: (message) => console.warn(`[market-assistant] ${message}`),
  error: (message) => console.error(`[market-assistant] ${message}`),
};

/**
 * A logger that keeps the lines, for tests.
 *
 * @example
 * const log = recordingLogger();
 * log.warn("x");
 * log.lines; // [{ level: "warn", message: "x" }]
 */
export function recordingLogger(): Logger & { lines: { level: "info" | "warn" | "error"; message: string }[] } {
  const lines: { level: "info" | "warn" | "error"; message: string }[] = [];
  return {
    lines,
    info: (message) => lines.push({ level: "info", message }),
    warn: (message) => lines.push({ level: "warn", message }),
    error: (message) => lines.push({ level: "error", message }),
  };
}
