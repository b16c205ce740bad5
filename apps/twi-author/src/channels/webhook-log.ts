/**
 * The webhooks' log lines: one `webhook-received` line (info) per accepted update or activity and one
 * `webhook-refused` line (warn) per refusal, with the route, the status answered, a stable `reason`
 * and the thread id when the request names one — never a secret, a token, a header or the body. The
 * server's logger (`ctx.log`) limits refusal lines per reason (10 a minute, then one
 * `log-suppressed` line), so a flood of forged requests cannot fill the log.
 */
import { readSubmitData, type TeamsActivity } from "./teams/teams-activity.js";
import { teamsConversationId } from "./teams/teams-bot.js";

/**
 * A log line as the Trellis server's logger takes it (`@trellis/server`'s `LogEntry`).
 *
 * @example
 * const line: TwiLogEntry = { level: "info", event: "webhook-received", route: "/telegram/webhook" };
 */
export interface TwiLogEntry {
  level: "debug" | "info" | "warn" | "error";
  event: string;
  [field: string]: unknown;
}

/**
 * Where the app's log lines go: the server's logger (`ctx.log` of the routes), or nowhere.
 *
 * @example
 * const log: TwiLog = (entry) => console.log(JSON.stringify(entry));
 */
export type TwiLog = (entry: TwiLogEntry) => void;

/**
 * Why a webhook was refused: `not-configured` (its check is not set up: 503), `bad-token` (Teams'
 * Bot Framework token failed), `bad-secret` (Telegram's secret header is missing or wrong),
 * `malformed-body` (not an activity or update), `not-admitted` (a verified Teams activity that may
 * not act: a card of another conversation, a serviceUrl not allowed…).
 *
 * @example
 * const reason: RefusalReason = "bad-secret";
 */
export type RefusalReason = "not-configured" | "bad-token" | "bad-secret" | "malformed-body" | "not-admitted";

/** Longest `detail` a refusal line carries (it may quote what the caller sent, e.g. a serviceUrl). */
const MAX_DETAIL = 200;

/**
 * The lines of one webhook route.
 *
 * @example
 * const hook = webhookLog(ctx.log, "telegram", "/telegram/webhook");
 * hook.refused(401, "bad-secret");
 * hook.received({ threadId: "telegram-42-5" });
 */
export function webhookLog(log: TwiLog | undefined, channel: "teams" | "telegram", route: string) {
  return {
    received(ids: { threadId?: string | undefined; kind?: string | undefined } = {}): void {
      log?.({ level: "info", event: "webhook-received", channel, route, ...defined(ids) });
    },
    refused(status: number, reason: RefusalReason, detail?: string, ids: { threadId?: string | undefined } = {}): void {
      log?.({
        level: "warn",
        event: "webhook-refused",
        channel,
        route,
        status,
        reason,
        ...(detail ? { detail: detail.slice(0, MAX_DETAIL) } : {}),
        ...defined(ids),
      });
    },
  };
}

function defined(fields: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The thread a Teams activity acts on: the card's conversation for a card submit, else the one a
 * message starts; undefined when it names none.
 *
 * @example
 * teamsThreadOf(activity); // "msteams-<tenant>-<conversation>-<activity>"
 */
export function teamsThreadOf(activity: TeamsActivity): string | undefined {
  if (activity.type !== "message") return undefined;
  return readSubmitData(activity.value)?.conversationId ?? teamsConversationId(activity);
}
