/**
 * Issue 17 finding 2, through the door, with the shipped configuration: no Teams app id, no Telegram
 * secret, no opt-in to unverified webhooks. Every webhook must refuse (503, naming the variable to set)
 * and change nothing; the server must say which routes answer without its auth.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { initialState } from "../state.js";
import { type RecordingServer, startRecordingServer } from "../test/recording-server.js";
import { PALLET_REQUEST } from "../test/test-app.js";
import { type DoorServer, REPO_DIR, startDoorServer, teamsActivity } from "../test/webhook-door.js";

const dataDir = mkdtempSync(join(tmpdir(), "twi-door-data-"));
let attacker: RecordingServer;
let door: DoorServer;

beforeAll(async () => {
  vi.stubEnv("TWI_DATA_DIR", dataDir);
  vi.stubEnv("TWI_URL_SIGNING_SECRET", "door-test-secret-0123456789");
  for (const name of [
    "TEAMS_APP_ID",
    "TEAMS_APP_PASSWORD",
    "TEAMS_VERIFY_REQUESTS",
    "TEAMS_API_BASE_URL",
    "TEAMS_SERVICE_URL_HOSTS",
    "TELEGRAM_WEBHOOK_SECRET",
    "TELEGRAM_BOT_TOKEN",
    "TWI_ALLOW_UNVERIFIED_WEBHOOKS",
  ]) {
    vi.stubEnv(name, "");
  }
  attacker = await startRecordingServer();
  door = await startDoorServer();
});

afterAll(async () => {
  await door?.close();
  await attacker?.close();
  vi.unstubAllEnvs();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A conversation started over the Agent Server API, paused at review: another user's thread. */
async function victimThread(id: string): Promise<void> {
  const created = await fetch(`${door.url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ thread_id: id }),
  });
  expect(created.status).toBe(200);
  const run = await door.post(`/threads/${id}/runs/wait`, {
    assistant_id: "twi-author",
    input: initialState({
      conversation_id: id,
      user_id: "aad-victim",
      tenant_id: "tenant-acme",
      channel: "msteams",
      message: PALLET_REQUEST,
    }),
  });
  expect(run.status).toBe(200);
}

async function threadStatus(id: string): Promise<unknown> {
  return ((await (await fetch(`${door.url}/threads/${id}`)).json()) as { status?: unknown }).status;
}

describe("twi-author webhooks with the shipped configuration (no verification configured)", () => {
  it("the issue's attack — an unauthenticated card submit approving another user's thread — is 503 and changes nothing", async () => {
    await victimThread("victim-1");
    const before = await door.thread("victim-1");
    expect(before.next).toEqual(["review"]);
    expect(await threadStatus("victim-1")).toBe("interrupted");

    for (const action of ["approved", "final_approved"]) {
      const res = await door.post(
        "/apps/twi-author/teams/messages",
        teamsActivity(`evil-${action}`, {
          serviceUrl: attacker.url,
          conversation: { id: "a:evil" },
          value: { twi: "decision", conversationId: "victim-1", action },
        }),
      );
      expect(res.status).toBe(503);
      expect(JSON.stringify(res.json)).toContain("TEAMS_APP_ID");
      expect(JSON.stringify(res.json)).toContain("TWI_ALLOW_UNVERIFIED_WEBHOOKS");
    }

    expect(await door.thread("victim-1")).toEqual(before);
    expect(await threadStatus("victim-1")).toBe("interrupted");
    expect(attacker.requests).toEqual([]);
  });

  it("a Telegram update without a configured secret is 503 naming TELEGRAM_WEBHOOK_SECRET, and changes nothing", async () => {
    await victimThread("telegram-77-1");
    const before = await door.thread("telegram-77-1");
    const res = await door.post("/apps/twi-author/telegram/webhook", {
      update_id: 1,
      callback_query: {
        id: "cb-1",
        from: { id: 9 },
        message: { message_id: 1, chat: { id: 77 } },
        data: "twi:a:telegram-77-1",
      },
    });
    expect(res.status).toBe(503);
    expect(JSON.stringify(res.json)).toContain("TELEGRAM_WEBHOOK_SECRET");
    expect(await door.thread("telegram-77-1")).toEqual(before);
  });

  it("the server reports every route that answers without its auth, and how each checks its caller", async () => {
    const routes = door.server.unauthenticatedRoutes;
    const find = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path);
    expect(find("POST", "/apps/twi-author/teams/messages")).toMatchObject({ check: "refused" });
    expect(find("POST", "/apps/twi-author/teams/messages")?.detail).toContain("TEAMS_APP_ID");
    expect(find("POST", "/apps/twi-author/telegram/webhook")).toMatchObject({ check: "refused" });
    expect(find("GET", "/apps/twi-author/blobs/*")).toMatchObject({ check: "verified" });
    expect(find("GET", "/ok")).toMatchObject({ check: "public" });
  });

  it("startServer's banner lists those routes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "twi-door-banner-"));
    const config = join(dir, "trellis.json");
    writeFileSync(
      config,
      JSON.stringify({
        graphs: {
          "twi-author": {
            module: join(REPO_DIR, "apps/twi-author/src/index.ts"),
            graph: "twiAuthorGraph",
            routes: "twiAuthorRoutes",
            routesAuth: "app",
          },
        },
        saver: { kind: "sqlite", path: "trellis.sqlite" },
      }),
    );
    const lines: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      lines.push(args.join(" "));
    });
    const signals = { SIGINT: process.listeners("SIGINT"), SIGTERM: process.listeners("SIGTERM") };
    try {
      const server = await startServer(config, { env: { PORT: "0" } });
      await server.close();
    } finally {
      log.mockRestore();
      for (const name of ["SIGINT", "SIGTERM"] as const) {
        for (const l of process.listeners(name)) if (!signals[name].includes(l)) process.off(name, l);
      }
      rmSync(dir, { recursive: true, force: true });
    }
    const text = lines.join("\n");
    expect(text).toMatch(/auth is off/i);
    expect(text).toMatch(/POST\s+\/apps\/twi-author\/teams\/messages\s+refused.*TEAMS_APP_ID/);
    expect(text).toMatch(/POST\s+\/apps\/twi-author\/telegram\/webhook\s+refused.*TELEGRAM_WEBHOOK_SECRET/);
    expect(text).toMatch(/GET\s+\/apps\/twi-author\/blobs\/\*\s+verified/);
  });

  it("with the server's auth on, the app's undeclared routes stay behind it; its declared ones answer for themselves", async () => {
    const guarded = await startDoorServer({
      auth: { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] },
    });
    try {
      expect((await fetch(`${guarded.url}/apps/twi-author/`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/apps/twi-author`)).status).toBe(401);
      const teams = await guarded.post(
        "/apps/twi-author/teams/messages",
        teamsActivity("evil-2", { serviceUrl: attacker.url, text: PALLET_REQUEST }),
      );
      expect(teams.status).toBe(503);
      const blob = await fetch(`${guarded.url}/apps/twi-author/blobs/acme/x/twi-r0.pdf?expires=1&sig=AAAA`);
      expect(blob.status).toBe(403);
      expect(attacker.requests).toEqual([]);
    } finally {
      await guarded.close();
    }
  });
});
