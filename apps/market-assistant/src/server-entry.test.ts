import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ChatMessage } from "./transcript/chat-message.js";

const appDir = fileURLToPath(new URL("..", import.meta.url));

describe("registered with the Trellis server (trellis.json: buildGraph + createRoutes)", () => {
  let server: TrellisServer;
  beforeAll(async () => {
    vi.stubEnv("MARKET_ASSISTANT_SQLITE_PATH", ":memory:");
    vi.stubEnv("REDIS_URL", "");
    vi.stubEnv("MARKET_ASSISTANT_DATABASE_URL", "");
    vi.stubEnv("TRELLIS_MODEL_PROVIDER", "");
    vi.stubEnv("MARKET_ASSISTANT_MODEL_PROVIDER", "");
    server = await createServer(
      {
        graphs: {
          "market-assistant": { module: "./src/server-entry.ts", graph: "buildGraph", routes: "createRoutes" },
        },
        saver: { kind: "sqlite", path: ":memory:" },
        baseDir: appDir,
      },
      { env: {} },
    );
  });
  afterAll(async () => {
    await server?.close();
    const { defaultMarketAssistant } = await import("./server-entry.js");
    await (await defaultMarketAssistant()).close();
    vi.unstubAllEnvs();
  });

  it("mounts the app's routes under /apps/market-assistant/", async () => {
    const health = await server.app.request("/apps/market-assistant/health");
    expect(health.status).toBe(200);
    const res = await server.app.request("/apps/market-assistant/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: "via-server", message: "Who owns E-Channelling?" }),
    });
    expect(res.status).toBe(200);
    const reply = (await res.json()) as ChatMessage;
    expect(reply.content).toContain("Owners of E-Channelling PLC:");
    expect(reply.content).toContain("Ultimate owner: Sri Lanka Telecom PLC (90.5%)");
    const thread = await server.app.request("/apps/market-assistant/threads/via-server/messages");
    expect(((await thread.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });

  it("serves the conversation graph over the Agent Server API, multi-turn on a server thread", async () => {
    const json = (body: unknown) => ({
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const created = await server.app.request("/threads", json({}));
    const { thread_id } = (await created.json()) as { thread_id: string };
    const run = async (content: string) => {
      const res = await server.app.request(
        `/threads/${thread_id}/runs/wait`,
        json({ assistant_id: "market-assistant", input: { messages: [{ role: "user", content }] } }),
      );
      expect(res.status).toBe(200);
      return (await res.json()) as { messages: { role: string; content: string }[]; outcome: string };
    };
    await run("Tell me about Hayleys");
    const values = await run("What companies do they own?");
    expect(values.outcome).toBe("answered");
    const answer = values.messages.at(-1)?.content ?? "";
    expect(answer).toContain("I took your question to be about Hayleys PLC");
    expect(answer).toContain(
      "- Puritas (Pvt) Ltd (Materials; unlisted): effective 67.7%, 100% held through Haycarb PLC",
    );
  });
});
