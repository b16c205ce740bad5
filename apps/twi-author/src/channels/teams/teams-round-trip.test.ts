import { createSign, generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordingServer, startRecordingServer } from "../../test/recording-server.js";
import { createTestApp, PALLET_REQUEST, type TestApp } from "../../test/test-app.js";
import { BackgroundTasks } from "../background-tasks.js";
import { createTwiRoutes } from "../twi-routes.js";
import type { TeamsActivity } from "./teams-activity.js";

const APP_ID = "11111111-2222-3333-4444-555555555555";
const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

function jwt(claims: Record<string, unknown>, kid = "key-1"): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const head = `${enc({ alg: "RS256", typ: "JWT", kid })}.${enc(claims)}`;
  return `${head}.${createSign("RSA-SHA256").update(head).sign(privateKey).toString("base64url")}`;
}

let server: RecordingServer;
let app: TestApp;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setup() {
  server = await startRecordingServer((req) => {
    if (req.path === "/openid") return { json: { jwks_uri: `${server.url}/keys` } };
    if (req.path === "/keys") {
      return { json: { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "key-1", endorsements: ["msteams"] }] } };
    }
    if (req.path === "/token") return { json: { access_token: "app-token-1", expires_in: 3600 } };
    return { status: 201, json: { id: `sent-${server.requests.length}` } };
  });
  cleanup.push(() => server.close());
  app = createTestApp({
    env: {
      TEAMS_APP_ID: APP_ID,
      TEAMS_APP_PASSWORD: "app-password",
      TEAMS_TOKEN_URL: `${server.url}/token`,
      TEAMS_OPENID_METADATA_URL: `${server.url}/openid`,
      TEAMS_SERVICE_URL_HOSTS: new URL(server.url).host,
    },
  });
  cleanup.push(() => app.dispose());
  const tasks = new BackgroundTasks((e) => {
    throw e;
  });
  const routes = createTwiRoutes({
    assistant: app.assistant,
    blobs: app.blobs,
    signer: app.signer,
    config: app.config,
    tasks,
  });
  const now = Math.floor(Date.now() / 1000);
  const token = jwt({
    iss: "https://api.botframework.com",
    aud: APP_ID,
    exp: now + 600,
    nbf: now - 10,
    serviceurl: server.url,
  });
  const post = async (activity: TeamsActivity, authorization = `Bearer ${token}`) => {
    const res = await routes.request("/teams/messages", {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body: JSON.stringify(activity),
    });
    await tasks.idle();
    return res;
  };
  return { routes, post, now };
}

function activity(id: string, extra: Partial<TeamsActivity>): TeamsActivity {
  return {
    type: "message",
    id,
    serviceUrl: server.url,
    channelId: "msteams",
    from: { id: "29:user", name: "Kovács Anna", aadObjectId: "aad-anna" },
    conversation: { id: "a:conv-1", tenantId: "tenant-acme" },
    recipient: { id: "28:bot", name: "TWI" },
    ...extra,
  };
}

/** The activities posted to the conversation, in order. */
function sent() {
  return server.requests
    .filter((r) => r.path === "/v3/conversations/a%3Aconv-1/activities")
    .map((r) => r.body as { type: string; text?: string; attachments?: Array<{ content: Record<string, unknown> }> });
}

function lastCard() {
  const card = sent().at(-1)?.attachments?.[0]?.content as
    | { body: Array<Record<string, unknown>>; actions: Array<{ title: string; data: Record<string, unknown> }> }
    | undefined;
  if (!card) throw new Error(`no card in ${JSON.stringify(sent().at(-1))}`);
  return card;
}

describe("Teams round trip (Bot Framework activities in, Adaptive Cards out)", () => {
  it("message → review card → revision with text → review card → approve → final card → PDF link", async () => {
    const { routes, post } = await setup();
    expect((await post(activity("act-1", { text: `<at>TWI</at> ${PALLET_REQUEST}` }))).status).toBe(200);

    // The token came from the configured endpoint and went on every call.
    expect(server.requests.find((r) => r.path === "/token")?.body).toContain("grant_type=client_credentials");
    const calls = server.requests.filter((r) => r.path.startsWith("/v3/"));
    expect(calls.every((r) => r.headers.authorization === "Bearer app-token-1")).toBe(true);
    expect(sent().map((a) => a.type)).toEqual(["typing", "message"]);
    let card = lastCard();
    expect(JSON.stringify(card.body)).toContain("⚠️ AI által generált tartalom — emberi felülvizsgálat szükséges.");
    expect(card.body.some((b) => b.type === "Input.Text" && b.id === "feedback")).toBe(true);
    expect(card.actions.map((a) => a.data.action)).toEqual(["approved", "revision_requested", "rejected"]);
    const conversationId = card.actions[0]?.data.conversationId as string;
    // The thread is bound to the Teams conversation and tenant: msteams-<their hash>-<activity id>.
    expect(conversationId).toMatch(/^msteams-[0-9a-f]{24}-act-1$/);

    // Request a revision: Teams sends the action's data merged with the card's inputs.
    const revise = card.actions[1]?.data ?? {};
    await post(activity("act-2", { value: { ...revise, feedback: "Biztonság: Vágásbiztos kesztyű kötelező" } }));
    card = lastCard();
    expect(JSON.stringify(card.body)).toContain("Javított vázlat (1. revízió)");
    expect(JSON.stringify(card.body)).toContain("Vágásbiztos kesztyű kötelező.");
    const state = await app.assistant.state(conversationId);
    expect(state).toMatchObject({
      revision_count: 1,
      user_id: "aad-anna",
      tenant_id: "tenant-acme",
      channel: "msteams",
    });

    await post(activity("act-3", { value: { ...card.actions[0]?.data } }));
    card = lastCard();
    expect(card.actions.map((a) => a.data.action)).toEqual(["final_approved"]);

    await post(activity("act-4", { value: { ...card.actions[0]?.data } }));
    const done = sent().at(-1);
    expect(done?.text).toMatch(/^✅ A munkautasítás jóváhagyva\. PDF \(24 óráig érvényes link\): http/);
    const link = new URL(done?.text?.split(": ").at(-1) ?? "");
    expect(link.pathname).toBe(`/apps/twi-author/blobs/tenant-acme/${conversationId}/twi-r1.pdf`);

    // The link works through the app's route; a tampered one gets 403.
    const local = `${link.pathname.replace("/apps/twi-author", "")}${link.search}`;
    const pdf = await routes.request(local);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
    expect((await routes.request(local.replace("twi-r1", "twi-r0"))).status).toBe(403);
    // a changed signature (its first character made another one: "A" would leave one starting with "A" as it was)
    const forged = local.replace(/sig=(.)/, (_m, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    expect(forged).not.toBe(local);
    expect((await routes.request(forged)).status).toBe(403);
    expect(await app.services.audit.get(conversationId)).toMatchObject({ channel: "msteams", revision_count: 1 });

    // A second press of an answered card is refused politely.
    await post(activity("act-5", { value: { ...card.actions[0]?.data } }));
    expect(sent().at(-1)?.text).toBe("Ez a beszélgetés már nem vár döntésre.");
  });

  it("reject from the review card ends the conversation", async () => {
    const { post } = await setup();
    await post(activity("act-1", { text: PALLET_REQUEST }));
    const reject = lastCard().actions[2]?.data ?? {};
    await post(activity("act-2", { value: { ...reject } }));
    expect(sent().at(-1)?.text).toBe("A vázlatot elutasította. A beszélgetés lezárult.");
    expect((await app.assistant.state(String(reject.conversationId))).status).toBe("rejected");
  });

  it("refuses activities without a valid Bot Framework token", async () => {
    const { post, now } = await setup();
    const bad = [
      "",
      "Bearer not-a-jwt",
      `Bearer ${jwt({ iss: "https://api.botframework.com", aud: "someone-else", exp: now + 600 })}`,
      `Bearer ${jwt({ iss: "https://evil.example", aud: APP_ID, exp: now + 600 })}`,
      `Bearer ${jwt({ iss: "https://api.botframework.com", aud: APP_ID, exp: now - 3600 })}`,
      `Bearer ${jwt({ iss: "https://api.botframework.com", aud: APP_ID, exp: now + 600, serviceurl: "https://other" })}`,
      `Bearer ${jwt({ iss: "https://api.botframework.com", aud: APP_ID, exp: now + 600 }, "unknown-key")}`,
    ];
    for (const authorization of bad) {
      expect((await post(activity("act-x", { text: PALLET_REQUEST }), authorization)).status).toBe(401);
    }
    expect(sent()).toEqual([]);
  });
});
