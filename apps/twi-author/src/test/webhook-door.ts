/**
 * The webhooks as an attacker meets them: the Trellis server built from the shipped `trellis.json`
 * entry of twi-author (module, routes export, `routesAuth: "app"` unchanged), listening on a random
 * port, reached over real HTTP. Also a local Bot Framework stand-in (OpenID metadata, JWKS, token
 * endpoint, connector) signing tokens with a key pair generated here.
 * @internal
 */
import { createSign, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, loadConfig, type TrellisServer } from "@trellis/server";
import { vi } from "vitest";
import type { TeamsActivity } from "../channels/teams/teams-activity.js";
import { twiAuthorTasks } from "../server-entry.js";
import { type RecordingServer, startRecordingServer } from "./recording-server.js";

/** The repository root (where the shipped `trellis.json` is). @internal */
export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** The bot's app id in the tests. @internal */
export const APP_ID = "11111111-2222-3333-4444-555555555555";

/** A server started from the shipped twi-author entry. @internal */
export interface DoorServer {
  server: TrellisServer;
  url: string;
  /** POSTs JSON to a path of the server and waits for the app's background work. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: unknown }>;
  /** Where a thread of twi-author stands: its next nodes and how many checkpoints it has. */
  thread(id: string): Promise<{ next: string[]; checkpoints: number; status: unknown }>;
  close(): Promise<void>;
}

/**
 * Starts `createServer` with the `twi-author` entry of the repository's `trellis.json` (only that
 * graph, on a SQLite file in a temporary folder), and listens on 127.0.0.1:random.
 * @internal
 */
export async function startDoorServer(
  options: { auth?: { enabled: boolean; credentials: Array<{ user: string; apiKey: string }> } } = {},
): Promise<DoorServer> {
  const shipped = await loadConfig(join(REPO_DIR, "trellis.json"));
  const entry = shipped.graphs["twi-author"];
  if (!entry) throw new Error("trellis.json has no twi-author entry");
  const dir = mkdtempSync(join(tmpdir(), "twi-door-"));
  const server = await createServer(
    {
      ...shipped,
      graphs: { "twi-author": entry },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      ...(options.auth ? { auth: options.auth } : {}),
    },
    { env: {} },
  );
  const { url } = await server.listen(0);
  const graph = server.graphs.get("twi-author")?.graph;
  if (!graph) throw new Error("twi-author is not hosted");
  return {
    server,
    url,
    async post(path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      await twiAuthorTasks.idle();
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, json };
    },
    async thread(id) {
      const state = await graph.getState({ threadId: id });
      let checkpoints = 0;
      for await (const _ of graph.getStateHistory({ threadId: id })) checkpoints += 1;
      return { next: [...state.next], checkpoints, status: (state.values as { status?: unknown }).status };
    },
    async close() {
      await twiAuthorTasks.idle();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Bot Framework message activity. @internal */
export function teamsActivity(id: string, extra: Partial<TeamsActivity> & { serviceUrl: string }): TeamsActivity {
  return {
    type: "message",
    id,
    channelId: "msteams",
    from: { id: "29:user", name: "Kovács Anna", aadObjectId: "aad-anna" },
    conversation: { id: "a:conv-1", tenantId: "tenant-acme" },
    recipient: { id: "28:bot", name: "TWI" },
    ...extra,
  };
}

/** The local Bot Framework: OpenID metadata, JWKS, token endpoint and connector, and a token signer. @internal */
export interface LocalBotFramework {
  server: RecordingServer;
  /** A signed Bot Framework token with these claims over the defaults (iss, aud, exp, nbf, serviceurl). */
  token(claims?: Record<string, unknown>): string;
  /** Activities the bot posted to a conversation. */
  sent(conversationId: string): Array<{ type: string; text?: string; attachments?: Array<{ content: Card }> }>;
  /** Requests to the connector (`/v3/…`). */
  connectorCalls(): number;
}

/**
 * Stubs the environment of a Teams channel with Bot Framework verification on, against `bf`: the app id
 * and password, its token and OpenID endpoints, the service URL host it may answer, and no override that
 * would turn verification off or send replies elsewhere. Undone by `vi.unstubAllEnvs()`. @internal
 */
export function stubVerifiedTeams(bf: LocalBotFramework): void {
  vi.stubEnv("TEAMS_APP_ID", APP_ID);
  vi.stubEnv("TEAMS_APP_PASSWORD", "app-password");
  vi.stubEnv("TEAMS_TOKEN_URL", `${bf.server.url}/token`);
  vi.stubEnv("TEAMS_OPENID_METADATA_URL", `${bf.server.url}/openid`);
  vi.stubEnv("TEAMS_SERVICE_URL_HOSTS", new URL(bf.server.url).host);
  for (const name of ["TEAMS_VERIFY_REQUESTS", "TEAMS_API_BASE_URL", "TWI_ALLOW_UNVERIFIED_WEBHOOKS"]) {
    vi.stubEnv(name, "");
  }
}

/** An Adaptive Card as the bot sends it. @internal */
export type Card = { actions: Array<{ data: Record<string, unknown> }> };

/** Starts the local Bot Framework on 127.0.0.1. @internal */
export async function startLocalBotFramework(options: { refuseTyping?: boolean } = {}): Promise<LocalBotFramework> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const server: RecordingServer = await startRecordingServer((req) => {
    if (req.path === "/openid") return { json: { jwks_uri: `${server.url}/keys` } };
    if (req.path === "/keys") {
      return { json: { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "key-1", endorsements: ["msteams"] }] } };
    }
    if (req.path === "/token") return { json: { access_token: "app-token-1", expires_in: 3600 } };
    if (options.refuseTyping && (req.body as { type?: string } | undefined)?.type === "typing") {
      return { status: 404, json: { error: { code: "NotFound", message: "typing refused" } } };
    }
    return { status: 201, json: { id: `sent-${server.requests.length}` } };
  });
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return {
    server,
    token(claims = {}) {
      const now = Math.floor(Date.now() / 1000);
      const body = {
        iss: "https://api.botframework.com",
        aud: APP_ID,
        exp: now + 600,
        nbf: now - 10,
        serviceurl: server.url,
        ...claims,
      };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete (body as Record<string, unknown>)[k];
      const head = `${enc({ alg: "RS256", typ: "JWT", kid: "key-1" })}.${enc(body)}`;
      return `${head}.${createSign("RSA-SHA256").update(head).sign(privateKey).toString("base64url")}`;
    },
    sent(conversationId) {
      return server.requests
        .filter((r) => r.path === `/v3/conversations/${encodeURIComponent(conversationId)}/activities`)
        .map((r) => r.body as ReturnType<LocalBotFramework["sent"]>[number]);
    },
    connectorCalls() {
      return server.requests.filter((r) => r.path.startsWith("/v3/")).length;
    },
  };
}

/** The last card posted to a conversation, and the thread id its buttons name. @internal */
export function lastCard(bf: LocalBotFramework, conversationId: string): { card: Card; thread: string } {
  const card = bf.sent(conversationId).at(-1)?.attachments?.[0]?.content;
  if (!card) throw new Error(`no card in ${JSON.stringify(bf.sent(conversationId).at(-1))}`);
  return { card, thread: String(card.actions[0]?.data.conversationId) };
}
