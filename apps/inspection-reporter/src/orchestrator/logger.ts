/**
 * Where the orchestrator reports what it does ("Graph interrupted at …", "Resuming interrupted graph
 * with …"). `console` fits.
 *
 * @example
 * const logger: Logger = { info: console.info, warn: console.warn };
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * Writes to the console with the app's prefix.
 *
 * @example
 * consoleLogger.info("ready"); // [inspection-reporter] ready
 */
export const consoleLogger: Logger = {
  info: (message) => console.info(`[inspection-reporter] ${message}`),
  warn: (message) => console.warn(`[inspection-reporter] ${message}`),
};

/**
 * Keeps the lines, for tests.
 *
 * @example
 * const log = recordingLogger();
 * log.info("x");
 * log.lines; // ["info: x"]
 */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(`info: ${message}`),
    warn: (message) => void lines.push(`warn: ${message}`),
  };
}

/**
 * Writes nothing.
 *
 * @example
 * new InspectionOrchestrator(graph, { logger: silentLogger });
 */
export const silentLogger: Logger = { info: () => {}, warn: () => {} };
