/**
 * The app's HTTP routes, as a Hono app the Trellis server mounts under `/apps/twi-author/`:
 *
 * | route | what |
 * |---|---|
 * | `POST /teams/messages` | Bot Framework activities (messages, Adaptive Card submits) |
 * | `POST /telegram/webhook` | Telegram updates (messages, inline keyboard presses) |
 * | `GET /blobs/<name>?expires=…&sig=…` | the PDFs, behind HMAC-signed links valid 24 hours (403 otherwise) |
 * | `GET /` | what the app serves |
 *
 * Each webhook verifies its caller (Bot Framework JWT; Telegram's secret header) or, when that check
 * is not configured, answers 503 naming the variable to set — unless `TWI_ALLOW_UNVERIFIED_WEBHOOKS`
 * opts into unverified development mode ({@link twiRouteAccess}). A Teams card acts only on a thread
 * of the Teams conversation (and tenant) it arrived in, and replies go only to an allow-listed
 * `serviceUrl`; a refused activity is 403 and changes nothing.
 *
 * Webhooks answer 200 at once and work in the background (an LLM call outlasts Teams' and Telegram's
 * patience); `tasks.idle()` waits for that work. Each webhook request writes one line to `log`:
 * `webhook-received` or `webhook-refused` with the reason ({@link webhookLog}).
 */
import { type Context, Hono } from "hono";
import type { TwiConfig } from "../config.js";
import type { BlobStorage } from "../storage/blob-storage.js";
import type { UrlSigner } from "../storage/url-signer.js";
import type { TwiAssistant } from "../twi-assistant.js";
import { BackgroundTasks } from "./background-tasks.js";
import { BotConnectorClient } from "./teams/bot-connector-client.js";
import { BotFrameworkAuth } from "./teams/bot-framework-auth.js";
import type { TeamsActivity } from "./teams/teams-activity.js";
import { TeamsBot } from "./teams/teams-bot.js";
import { TelegramBot, telegramThreadOf } from "./telegram/telegram-bot.js";
import { TelegramClient } from "./telegram/telegram-client.js";
import type { TelegramUpdate } from "./telegram/telegram-types.js";
import { sameSecret, twiRouteAccess } from "./webhook-access.js";
import { type TwiLog, teamsThreadOf, webhookLog } from "./webhook-log.js";

/**
 * Options of {@link createTwiRoutes}.
 *
 * @example
 * createTwiRoutes({ assistant: app.assistant, blobs: app.blobs, signer: app.signer, config: app.config });
 */
export interface TwiRoutesOptions {
  assistant: TwiAssistant;
  blobs: BlobStorage;
  signer: UrlSigner;
  config: TwiConfig;
  /** Used for every outgoing call (Bot Connector, token endpoint, OpenID keys, Telegram). */
  fetch?: typeof fetch;
  /** Where webhook work runs; pass one to wait for it (`await tasks.idle()`). */
  tasks?: BackgroundTasks;
  /** Where each webhook request's line goes (the server's `ctx.log`); none when absent. */
  log?: TwiLog;
}

async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    return undefined;
  }
}

/**
 * Builds the routes.
 *
 * @example
 * const routes = createTwiRoutes({ assistant, blobs, signer, config });
 * const res = await routes.request("/telegram/webhook", { method: "POST", body: JSON.stringify(update) });
 */
export function createTwiRoutes(options: TwiRoutesOptions): Hono {
  const { assistant, config } = options;
  const fetchImpl = options.fetch ?? fetch;
  const tasks = options.tasks ?? new BackgroundTasks();
  const teams = new TeamsBot(assistant, new BotConnectorClient(config.teams, fetchImpl));
  const telegram = new TelegramBot(assistant, new TelegramClient(config.telegram, fetchImpl), config.telegram.tenantId);
  const teamsAuth =
    config.teams.verifyRequests && config.teams.appId
      ? new BotFrameworkAuth({
          appId: config.teams.appId,
          openIdMetadataUrl: config.teams.openIdMetadataUrl,
          fetch: fetchImpl,
        })
      : undefined;
  const access = new Map(twiRouteAccess(config).map((r) => [r.path, r]));
  /** The 503 of a webhook whose check is not configured, naming the variable to set. */
  const refusal = (path: string) => {
    const route = access.get(path);
    return route?.check === "refused"
      ? { error: "WEBHOOK_NOT_CONFIGURED", message: `This webhook ${route.detail}.` }
      : undefined;
  };

  const app = new Hono();

  const index = (c: Context) =>
    c.json({
      app: "twi-author",
      routes: ["POST /teams/messages", "POST /telegram/webhook", "GET /blobs/<name>?expires=&sig="],
    });
  app.get("/", index);

  app.get("/blobs/*", async (c) => {
    const marker = "/blobs/";
    const raw = c.req.path.slice(c.req.path.indexOf(marker) + marker.length);
    let name: string;
    try {
      name = raw.split("/").map(decodeURIComponent).join("/");
    } catch {
      return c.json({ error: "bad blob name" }, 400);
    }
    const verdict = options.signer.verify(name, c.req.query("expires"), c.req.query("sig"));
    if (!verdict.ok) return c.json({ error: `link refused: ${verdict.reason}` }, 403);
    const blob = await options.blobs.read(name);
    if (!blob) return c.json({ error: "not found" }, 404);
    const file = name.split("/").at(-1) ?? "twi.pdf";
    return c.body(blob.bytes.slice().buffer, 200, {
      "content-type": blob.contentType,
      "content-disposition": `inline; filename="${file}"`,
      "cache-control": "private, max-age=300",
      "x-content-type-options": "nosniff",
    });
  });

  const teamsLog = webhookLog(options.log, "teams", "/teams/messages");
  app.post("/teams/messages", async (c) => {
    const refused = refusal("/teams/messages");
    if (refused) {
      teamsLog.refused(503, "not-configured");
      return c.json(refused, 503);
    }
    const activity = (await readJson(c.req.raw)) as TeamsActivity | undefined;
    if (typeof activity !== "object" || activity === null || typeof activity.type !== "string") {
      teamsLog.refused(400, "malformed-body");
      return c.json({ error: "expected a Bot Framework activity" }, 400);
    }
    if (teamsAuth) {
      const result = await teamsAuth.verify(c.req.header("authorization"), activity.serviceUrl, activity.channelId);
      if (!result.ok) {
        teamsLog.refused(401, "bad-token", result.reason);
        return c.json({ error: `unauthorized: ${result.reason}` }, 401);
      }
    }
    const verdict = await teams.admit(activity);
    if (!verdict.ok) {
      teamsLog.refused(verdict.status, "not-admitted", verdict.reason, { threadId: teamsThreadOf(activity) });
      return c.json({ error: `refused: ${verdict.reason}` }, verdict.status);
    }
    teamsLog.received({ kind: activity.type, threadId: teamsThreadOf(activity) });
    tasks.run(() => teams.handle(activity));
    return c.json({}, 200);
  });

  // `GET /apps/twi-author/` (with the slash) is the index too; anything else unknown stays 404
  app.get("/*", (c) => (/^(\/apps\/[^/]+)?\/$/.test(c.req.path) ? index(c) : c.notFound()));

  const telegramLog = webhookLog(options.log, "telegram", "/telegram/webhook");
  app.post("/telegram/webhook", async (c) => {
    const refused = refusal("/telegram/webhook");
    if (refused) {
      telegramLog.refused(503, "not-configured");
      return c.json(refused, 503);
    }
    const secret = config.telegram.webhookSecret;
    if (secret !== undefined && !sameSecret(c.req.header("x-telegram-bot-api-secret-token"), secret)) {
      telegramLog.refused(401, "bad-secret");
      return c.json({ error: "unauthorized" }, 401);
    }
    const update = (await readJson(c.req.raw)) as TelegramUpdate | undefined;
    if (typeof update !== "object" || update === null || typeof update.update_id !== "number") {
      telegramLog.refused(400, "malformed-body");
      return c.json({ error: "expected a Telegram update" }, 400);
    }
    telegramLog.received({
      kind: update.callback_query ? "callback_query" : update.message ? "message" : "other",
      threadId: telegramThreadOf(update),
    });
    tasks.run(() => telegram.handle(update));
    return c.json({ ok: true }, 200);
  });

  return app;
}
