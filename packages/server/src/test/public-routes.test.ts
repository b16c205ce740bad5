import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { startTestServer } from "./harness.js";

describe("publicRoutes", () => {
  it("answers without credentials while the API stays behind auth", async () => {
    const page = new Hono().get("/", (c) => c.html("<h1>studio</h1>"));
    const t = await startTestServer(
      { auth: { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] } },
      { publicRoutes: [{ path: "/studio", app: page }] },
    );
    try {
      const open = await fetch(`${t.url}/studio`);
      expect(open.status).toBe(200);
      expect(await open.text()).toContain("studio");
      expect((await fetch(`${t.url}/assistants/search`, { method: "POST", body: "{}" })).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
