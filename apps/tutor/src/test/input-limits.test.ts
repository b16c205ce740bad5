import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
let server: TrellisServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-limits-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<TrellisServer> {
  server = await createServer(
    {
      graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
  return server;
}

async function call(s: TrellisServer, path: string, body?: unknown) {
  const res = await s.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as { error?: string; reason?: string } };
}

describe("input length limits (issue 23, tutor finding 5)", () => {
  it("standalone: a 1 MB query is a 400 that says the limit, and nothing is stored", async () => {
    const agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null });
    try {
      const app = createTutorApp(agent);
      const huge = "¿Qué es un contenedor? ".repeat(50_000); // ~1 MB
      const res = await app.request("/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: huge, id: "big", asignatura: "iv" }),
      });
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: string; reason: string };
      expect(json.error).toBe("INVALID_ARGUMENT");
      expect(json.reason).toContain("query is too long: at most 4000 characters");
      expect((await agent.graph.getState({ threadId: "big" })).checkpointId).toBeUndefined();
    } finally {
      agent.close();
    }
  });

  it("served: a query over the limit (but under the server's body limit) is a 400, nothing stored", async () => {
    const s = await start();
    const long = "¿Qué es un contenedor? ".repeat(500); // ~11,500 characters
    const chat = await call(s, "/apps/tutor/chat", { query: long, id: "big", asignatura: "iv" });
    expect(chat.status).toBe(400);
    expect(chat.json.error).toBe("INVALID_ARGUMENT");
    expect(chat.json.reason).toContain("query is too long: at most 4000 characters");
    expect((await call(s, "/threads/big")).status).toBe(404);
    const search = await call(s, "/apps/tutor/search", { query: long });
    expect(search.status).toBe(400);
    expect(search.json.reason).toContain("at most 4000 characters");
  });

  it("an answer or an id past its limit is a 400 too; a question of 4000 characters is answered", async () => {
    const s = await start();
    const answer = await call(s, "/apps/tutor/resume_chat", { id: "x", user_response: "B".repeat(1001) });
    expect(answer.status).toBe(400);
    expect(answer.json.reason).toContain("user_response is too long: at most 1000 characters");
    const id = await call(s, "/apps/tutor/chat", { query: "Hola", id: "i".repeat(129) });
    expect(id.status).toBe(400);
    expect(id.json.reason).toContain("id is too long: at most 128 characters");
    const longest = `¿Qué es un volumen?${" ".repeat(3970)}¿y?`;
    expect(
      (await call(s, "/apps/tutor/chat", { query: longest.slice(0, 4000), id: "ok", asignatura: "iv" })).status,
    ).toBe(200);
  });
});
