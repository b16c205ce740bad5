import { describe, expect, it } from "vitest";
import { startTestServer } from "./harness.js";

const auth = { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] };
const entry = (routes: string) => ({
  module: "./src/test/fixture-app-auth.ts",
  graph: "graph",
  routes,
  routesAuth: "app" as const,
});

describe('routes of apps mounted with routesAuth "app"', () => {
  it("only the routes the app declared skip the server's auth; its other routes need credentials", async () => {
    const t = await startTestServer({ graphs: { hooks: entry("declaringRoutes") }, auth });
    try {
      const hook = await fetch(`${t.url}/apps/hooks/hook`, { method: "POST", headers: { "x-signature": "good" } });
      expect(hook.status).toBe(200);
      expect((await fetch(`${t.url}/apps/hooks/hook`, { method: "POST" })).status).toBe(403);
      expect((await fetch(`${t.url}/apps/hooks/files/a/b.pdf?sig=ok`)).status).toBe(200);
      expect((await fetch(`${t.url}/apps/hooks/files/a/b.pdf?sig=ok`, { method: "HEAD" })).status).toBe(200);
      // Undeclared: the server's auth answers first.
      expect((await fetch(`${t.url}/apps/hooks/admin`)).status).toBe(401);
      expect((await fetch(`${t.url}/apps/hooks/files/upload`, { method: "POST" })).status).toBe(401);
      expect((await fetch(`${t.url}/apps/hooks/hook`)).status).toBe(401);
      expect((await fetch(`${t.url}/apps/hooks`)).status).toBe(401);
      expect((await fetch(`${t.url}/apps/hooks/hook/`, { method: "POST" })).status).toBe(401);
      expect((await fetch(`${t.url}/apps/hooks/admin`, { headers: { "x-api-key": "key-ana" } })).status).toBe(200);

      expect(t.server.unauthenticatedRoutes).toEqual([
        { method: "GET", path: "/ok", check: "public", detail: "liveness" },
        { method: "POST", path: "/apps/hooks/hook", check: "verified", detail: "x-signature", assistantId: "hooks" },
        { method: "GET", path: "/apps/hooks/files/*", check: "verified", detail: "signed link", assistantId: "hooks" },
      ]);
      const banner = t.server.authBanner().join("\n");
      expect(banner).toContain("Auth is on");
      expect(banner).toMatch(/POST\s+\/apps\/hooks\/hook\s+verified: x-signature/);
    } finally {
      await t.close();
    }
  });

  it("an app that declares nothing fails closed: all of its routes stay behind the server's auth", async () => {
    const t = await startTestServer({ graphs: { silent: entry("silentRoutes") }, auth });
    try {
      expect((await fetch(`${t.url}/apps/silent/hook`, { method: "POST" })).status).toBe(401);
      expect(t.server.unauthenticatedRoutes.some((r) => r.assistantId === "silent")).toBe(false);
      expect(t.server.authBanner().join("\n")).not.toMatch(/apps\/silent/);
    } finally {
      await t.close();
    }
  });

  it("a malformed declaration stops the server from starting", async () => {
    await expect(startTestServer({ graphs: { bad: entry("badRoutes") }, auth })).rejects.toThrow(
      /declared an app-auth route/,
    );
  });
});
