/**
 * Outgoing calls to the Bot Framework Connector: an app token (client-credentials grant, cached until
 * shortly before it expires) and `POST {serviceUrl}/v3/conversations/{id}/activities`.
 */
import type { TeamsConfig } from "../../config.js";
import { serviceUrlAllowed } from "../webhook-access.js";

/**
 * An outgoing activity (a message with text or cards).
 *
 * @example
 * const reply: OutgoingActivity = { type: "message", text: "Kész." };
 */
export interface OutgoingActivity {
  type: "message" | "typing";
  text?: string;
  textFormat?: "plain" | "markdown";
  attachments?: Array<{ contentType: string; content: unknown }>;
  replyToId?: string;
}

/**
 * Sends activities into Teams conversations.
 *
 * @example
 * const client = new BotConnectorClient(config.teams);
 * await client.send("https://smba.trafficmanager.net/emea/", "a:1", { type: "message", text: "Szia" });
 */
export class BotConnectorClient {
  readonly #config: TeamsConfig;
  readonly #fetch: typeof fetch;
  #token: { value: string; expiresAt: number } | undefined;

  constructor(config: TeamsConfig, fetchImpl: typeof fetch = fetch) {
    this.#config = config;
    this.#fetch = fetchImpl;
  }

  /**
   * Whether replies to an activity with this `serviceUrl` may be sent: always through
   * `TEAMS_API_BASE_URL`, else only to an allow-listed host (`TEAMS_SERVICE_URL_HOSTS`).
   */
  canReach(serviceUrl: string | undefined): boolean {
    return this.#config.apiBaseUrl !== undefined || serviceUrlAllowed(serviceUrl, this.#config.serviceUrlHosts);
  }

  /**
   * Posts an activity to a conversation; `TEAMS_API_BASE_URL` replaces the activity's `serviceUrl`.
   * Throws, sending nothing, for a `serviceUrl` whose host is not allow-listed: the app's token goes
   * with every call.
   */
  async send(serviceUrl: string, conversationId: string, activity: OutgoingActivity): Promise<void> {
    if (!this.canReach(serviceUrl)) {
      throw new Error(`Refusing to send to ${serviceUrl}: its host is not in TEAMS_SERVICE_URL_HOSTS.`);
    }
    const base = (this.#config.apiBaseUrl ?? serviceUrl).replace(/\/+$/, "");
    const url = `${base}/v3/conversations/${encodeURIComponent(conversationId)}/activities`;
    const headers: Record<string, string> = { "content-type": "application/json" };
    const token = await this.#appToken();
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await this.#fetch(url, { method: "POST", headers, body: JSON.stringify(activity) });
    if (!response.ok) {
      throw new Error(`Bot Connector answered ${response.status} to ${url}: ${(await response.text()).slice(0, 300)}`);
    }
  }

  /** The app's token, or `undefined` without credentials (the Bot Framework Emulator needs none). */
  async #appToken(): Promise<string | undefined> {
    const { appId, appPassword, tokenUrl } = this.#config;
    if (!appId || !appPassword) return undefined;
    if (this.#token && this.#token.expiresAt > Date.now() + 60_000) return this.#token.value;
    const response = await this.#fetch(tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: appId,
        client_secret: appPassword,
        scope: "https://api.botframework.com/.default",
      }).toString(),
    });
    if (!response.ok) throw new Error(`The token endpoint answered ${response.status}.`);
    const body = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new Error("The token endpoint sent no access_token.");
    this.#token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 3600) * 1000 };
    return body.access_token;
  }
}
