import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { startTestServer } from "./harness.js";

const auth = { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] };
const app = (routesAuth?: "server" | "app") => ({
  graphs: {
    tutor: {
      module: "./src/test/fixture-app.ts",
      graph: "makeGraph",
      routes: "routes",
      ...(routesAuth ? { routesAuth } : {}),
    },
  },
});

function exchange(url: string, message: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on("open", () => ws.send(message));
    ws.on("message", (raw) => {
      resolve(JSON.parse(String(raw)));
      ws.close();
    });
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.on("error", reject);
  });
}

describe("application routes", () => {
  it("are behind the server's auth by default", async () => {
    const t = await startTestServer({ ...app(), auth });
    try {
      expect((await fetch(`${t.url}/apps/tutor/hello`)).status).toBe(401);
      const ok = await fetch(`${t.url}/apps/tutor/hello`, { headers: { "x-api-key": "key-ana" } });
      expect(await ok.json()).toEqual({ assistant: "tutor", graph: expect.any(String) });
    } finally {
      await t.close();
    }
  });

  it('with routesAuth "app" answer without the server\'s credentials and check their own', async () => {
    const t = await startTestServer({ ...app("app"), auth });
    try {
      const good = await fetch(`${t.url}/apps/tutor/webhook`, { method: "POST", headers: { "x-signature": "good" } });
      expect(good.status).toBe(200);
      const bad = await fetch(`${t.url}/apps/tutor/webhook`, { method: "POST", headers: { "x-signature": "forged" } });
      expect(bad.status).toBe(403);
      expect((await fetch(`${t.url}/assistants/search`, { method: "POST", body: "{}" })).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it("log through the embedding server's logger (createServer's log), tagged with the app", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const t = await startTestServer({ ...app("app") }, { log: (entry) => lines.push(entry) });
    try {
      await fetch(`${t.url}/apps/tutor/webhook`, { method: "POST", headers: { "x-signature": "good" } });
      await fetch(`${t.url}/apps/tutor/webhook`, { method: "POST", headers: { "x-signature": "forged" } });
      const hooks = lines.filter((l) => String(l.event).startsWith("webhook-"));
      expect(hooks).toEqual([
        expect.objectContaining({ app: "tutor", level: "info", event: "webhook-received" }),
        expect.objectContaining({ app: "tutor", level: "warn", event: "webhook-refused", reason: "bad-signature" }),
      ]);
    } finally {
      await t.close();
    }
  });

  it("can take WebSocket upgrades under /apps/<id>/, authenticated by the server", async () => {
    const t = await startTestServer({ ...app(), auth });
    const ws = t.url.replace("http", "ws");
    try {
      await expect(exchange(`${ws}/apps/tutor/echo`, "hi")).rejects.toThrow("HTTP 401");
      expect(await exchange(`${ws}/apps/tutor/echo?api_key=key-ana`, "hi")).toEqual({ user: "ana", echo: "hi" });
    } finally {
      await t.close();
    }
  });

  it("rejects an unknown routesAuth value with a clear error", async () => {
    await expect(
      startTestServer({ graphs: { tutor: { module: "./src/test/fixture-app.ts", routesAuth: "nobody" as "app" } } }),
    ).rejects.toThrow('routesAuth must be "server" or "app"');
  });
});
