/**
 * Who may call the app's routes, decided once from the settings: each webhook verifies its caller,
 * or — when its check is not configured — answers 503 naming the variable to set, unless the operator
 * opted into unverified development mode (`TWI_ALLOW_UNVERIFIED_WEBHOOKS`). The same list is declared
 * to the Trellis server (`ctx.declareAppAuthRoutes`), which lets only these routes past its auth and
 * prints them in its startup banner.
 */
import { timingSafeEqual } from "node:crypto";
import { type TwiConfig, UNVERIFIED_WEBHOOKS_OPT_IN } from "../config.js";

/**
 * A route that answers without the server's auth, as `@trellis/server`'s `AppAuthRoute` has it.
 *
 * @example
 * const r: TwiRouteAccess = { method: "POST", path: "/telegram/webhook", check: "verified", detail: "…" };
 */
export interface TwiRouteAccess {
  method: "GET" | "POST";
  path: string;
  check: "verified" | "refused" | "unverified";
  detail: string;
}

/**
 * The app's routes that check their own callers, and how each does with these settings.
 *
 * @example
 * twiRouteAccess(loadTwiConfig({})).find((r) => r.path === "/teams/messages")?.check; // "refused"
 */
export function twiRouteAccess(config: TwiConfig): TwiRouteAccess[] {
  const devMode = `unverified: anyone can call it and act as any user (TWI_ALLOW_UNVERIFIED_WEBHOOKS=${UNVERIFIED_WEBHOOKS_OPT_IN}; development only)`;
  const teams: TwiRouteAccess = config.teams.verifyRequests
    ? {
        method: "POST",
        path: "/teams/messages",
        check: "verified",
        detail: `Bot Framework JWT for TEAMS_APP_ID (keys from ${config.teams.openIdMetadataUrl}); replies only to the token's serviceUrl on ${config.teams.serviceUrlHosts.join(", ")}`,
      }
    : config.unverifiedWebhooks
      ? {
          method: "POST",
          path: "/teams/messages",
          check: "unverified",
          detail: `${devMode}; replies only to ${config.teams.apiBaseUrl ?? config.teams.serviceUrlHosts.join(", ")}`,
        }
      : { method: "POST", path: "/teams/messages", check: "refused", detail: teamsRefusal(config) };
  const telegram: TwiRouteAccess = config.telegram.webhookSecret
    ? {
        method: "POST",
        path: "/telegram/webhook",
        check: "verified",
        detail: "X-Telegram-Bot-Api-Secret-Token equal to TELEGRAM_WEBHOOK_SECRET",
      }
    : config.unverifiedWebhooks
      ? { method: "POST", path: "/telegram/webhook", check: "unverified", detail: devMode }
      : { method: "POST", path: "/telegram/webhook", check: "refused", detail: telegramRefusal() };
  return [
    teams,
    telegram,
    {
      method: "GET",
      path: "/blobs/*",
      check: "verified",
      detail: "HMAC-signed link (expires, sig) of TWI_URL_SIGNING_SECRET",
    },
  ];
}

function teamsRefusal(config: TwiConfig): string {
  const why = config.teams.appId
    ? "TEAMS_VERIFY_REQUESTS turns the Bot Framework token check off"
    : "TEAMS_APP_ID is not set, so Bot Framework tokens cannot be checked";
  return `answers 503 because ${why}. Set TEAMS_APP_ID (and TEAMS_APP_PASSWORD) to verify Teams activities, or TWI_ALLOW_UNVERIFIED_WEBHOOKS=${UNVERIFIED_WEBHOOKS_OPT_IN} for local development only`;
}

function telegramRefusal(): string {
  return `answers 503 because TELEGRAM_WEBHOOK_SECRET is not set, so updates cannot be told from forgeries. Set it (and pass it to setWebhook as secret_token), or TWI_ALLOW_UNVERIFIED_WEBHOOKS=${UNVERIFIED_WEBHOOKS_OPT_IN} for local development only`;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Whether replies may go to a Bot Framework `serviceUrl`: it parses, carries no credentials, uses
 * https (http only on a loopback host), and its host matches a pattern — `host`, `*.domain` (a
 * subdomain), or `host:port`; a pattern without a port allows only the default port.
 *
 * @example
 * serviceUrlAllowed("https://smba.trafficmanager.net/emea/", ["smba.trafficmanager.net"]); // true
 * serviceUrlAllowed("https://evil.trafficmanager.net/", ["smba.trafficmanager.net"]); // false
 */
export function serviceUrlAllowed(serviceUrl: string | undefined, patterns: readonly string[]): boolean {
  if (!serviceUrl) return false;
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "") return false;
  const hostname = url.hostname.toLowerCase();
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(hostname))) return false;
  return patterns.some((raw) => {
    const pattern = raw.toLowerCase();
    const colon = pattern.lastIndexOf(":");
    const hasPort = colon > pattern.lastIndexOf("]") && /^\d+$/.test(pattern.slice(colon + 1));
    const hostPattern = hasPort ? pattern.slice(0, colon) : pattern;
    if (hasPort ? url.port !== pattern.slice(colon + 1) : url.port !== "") return false;
    if (hostPattern.startsWith("*."))
      return hostname.endsWith(hostPattern.slice(1)) && hostname.length > hostPattern.length - 1;
    return hostname === hostPattern;
  });
}

/**
 * Compares a secret in constant time.
 *
 * @example
 * sameSecret(c.req.header("x-telegram-bot-api-secret-token"), config.telegram.webhookSecret);
 */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
