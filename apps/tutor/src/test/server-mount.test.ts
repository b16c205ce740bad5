import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
let server: TrellisServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-server-"));
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
      graphs: {
        tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes", name: "Tutor" },
      },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
  return server;
}

async function call(s: TrellisServer, path: string, body: unknown) {
  const res = await s.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown> & { interrupt_info?: { question_num: number } },
  };
}

describe("registered with the Trellis server (trellis.json)", () => {
  it("serves /chat and /resume_chat under /apps/tutor/ with the server's saver", async () => {
    const s = await start();
    const chat = await call(s, "/apps/tutor/chat", {
      query: "Hazme un test de 2 preguntas sobre Scrum",
      id: "srv",
      asignatura: "DS",
    });
    expect(chat.status).toBe(200);
    expect(chat.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 2 });
    const next = await call(s, "/apps/tutor/resume_chat", { id: "srv", user_response: "A" });
    expect(next.json.interrupt_info).toMatchObject({ question_num: 2 });
    const bad = await call(s, "/apps/tutor/chat", { id: "srv" });
    expect(bad.status).toBe(400);
    // The thread lives in the server's checkpointer: its state API sees the paused test.
    const graph = s.graphs.get("tutor")?.graph;
    const state = await graph?.getState({ threadId: "srv" });
    expect(state?.next).toEqual(["test_session"]);
    expect(state?.interrupts[0]?.value).toMatchObject({ action: "answer_question", question_num: 2 });
  });

  it("runs the tutor graph through the Agent Server API too", async () => {
    const s = await start();
    const thread = (await call(s, "/threads", {})).json as { thread_id: string };
    const run = await call(s, `/threads/${thread.thread_id}/runs/wait`, {
      assistant_id: "tutor",
      input: { messages: [{ role: "user", content: "¿Qué es una prueba unitaria?" }], asignatura: "DS" },
    });
    expect(run.status).toBe(200);
    const messages = run.json.messages as { role: string; content: string }[];
    expect(messages.at(-1)?.content).toContain("Una prueba unitaria verifica automáticamente");
  });
});
