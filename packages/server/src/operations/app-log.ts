import { rateLimitedLogger } from "./log-rate-limit.js";
import { jsonLogger, type Logger } from "./worker-log.js";

/** How many refusal lines of one event and reason an app writes a minute before they are counted. */
export const APP_REFUSALS_PER_MINUTE = 10;

/**
 * The logger an app's routes get (`ctx.log`): the server's JSON lines (levels, `TRELLIS_LOG_LEVEL`,
 * `TRELLIS_LOG_FORMAT`, pretty on a TTY), each with `app: <assistant id>`. A line at `warn` or above
 * that has a `reason` — a refused webhook, say — is limited per event and reason to
 * {@link APP_REFUSALS_PER_MINUTE} a minute; the rest are summed up in one `log-suppressed` line when
 * the minute ends, so whoever sends refused requests cannot flood the log.
 *
 * @example
 * const log = appLogger("twi-author");
 * log({ level: "warn", event: "webhook-refused", route: "/telegram/webhook", reason: "bad-secret", status: 401 });
 * @internal
 */
export function appLogger(assistantId: string, base: Logger = jsonLogger({ app: assistantId })): Logger {
  const withApp: Logger = (entry) => base({ app: assistantId, ...entry });
  return rateLimitedLogger(withApp, {
    perWindow: APP_REFUSALS_PER_MINUTE,
    windowMs: 60_000,
    key: (e) =>
      (e.level === "warn" || e.level === "error") && e.reason !== undefined
        ? `${e.event}:${String(e.reason)}`
        : undefined,
  });
}
