/** CORS for browser apps on another origin: any origin in development, only listed ones with auth on. */
import { describe, expect, it } from "vitest";
import { startTestServer } from "./harness.js";

const preflight = (url: string, origin: string) =>
  fetch(`${url}/threads/search`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type,x-api-key",
    },
  });

describe("CORS", () => {
  it("with auth off, any origin may call the API (LangGraph's dev server does the same)", async () => {
    const t = await startTestServer();
    try {
      const res = await preflight(t.url, "http://localhost:3000");
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
      expect(res.headers.get("access-control-allow-headers")).toMatch(/x-api-key/);
      const search = await fetch(`${t.url}/threads/search`, {
        method: "POST",
        headers: { origin: "http://localhost:3000", "content-type": "application/json" },
        body: "{}",
      });
      expect(search.status).toBe(200);
      expect(search.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
    } finally {
      await t.close();
    }
  });

  it("with auth on, only the listed origins; the request itself still needs credentials", async () => {
    const auth = { enabled: true, credentials: [{ user: "ana", apiKey: "key-ana" }] };
    const t = await startTestServer({ auth, allowedOrigins: ["https://chat.example.com"] });
    try {
      expect((await preflight(t.url, "https://evil.example.com")).headers.get("access-control-allow-origin")).toBe(
        null,
      );
      const listed = await preflight(t.url, "https://chat.example.com");
      expect(listed.headers.get("access-control-allow-origin")).toBe("https://chat.example.com");
      const anonymous = await fetch(`${t.url}/threads/search`, {
        method: "POST",
        headers: { origin: "https://chat.example.com", "content-type": "application/json" },
        body: "{}",
      });
      expect(anonymous.status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
