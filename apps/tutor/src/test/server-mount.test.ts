import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "@trellis/models";
import { createServer, type TrellisConfig, type TrellisServer } from "@trellis/server";
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

async function start(overrides: Partial<TrellisConfig> = {}): Promise<TrellisServer> {
  server = await createServer(
    {
      graphs: {
        tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes", name: "Tutor" },
      },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
      ...overrides,
    },
    { env: {}, workers: 1 },
  );
  return server;
}

type Json = Record<string, unknown> & {
  interrupt_info?: { question_num: number } | null;
  interrupted?: boolean;
  message?: string;
  error?: string;
};

async function call(s: TrellisServer, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await s.app.request(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json", ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

const QUIZ = { query: "Hazme un test de 2 preguntas sobre pruebas", asignatura: "DS" };

/** How many checkpoints the thread has, and what it waits on: what a refused message must not change. */
async function where(s: TrellisServer, id: string) {
  const history = await call(s, `/threads/${id}/history`, { limit: 1000 });
  const state = await call(s, `/threads/${id}/state`);
  return { checkpoints: (history.json as unknown as unknown[]).length, next: state.json.next };
}

describe("registered with the Trellis server (trellis.json)", () => {
  it("serves /chat and /resume_chat under /apps/tutor/ with the server's saver", async () => {
    const s = await start();
    const chat = await call(s, "/apps/tutor/chat", {
      query: "Hazme un test de 2 preguntas sobre pruebas",
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

  it("a conversation on /apps/tutor is a server thread: visible, searchable, one history with the API", async () => {
    const s = await start();
    const first = await call(s, "/apps/tutor/chat", { ...QUIZ, id: "doors" });
    expect(first.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 2 });

    const thread = await call(s, "/threads/doors");
    expect(thread.status).toBe(200);
    expect(thread.json).toMatchObject({ status: "interrupted", metadata: { graph_id: "tutor" } });
    const found = await call(s, "/threads/search", { metadata: { graph_id: "tutor" } });
    expect((found.json as unknown as { thread_id: string }[]).map((t) => t.thread_id)).toEqual(["doors"]);

    // Question 1 answered over the Agent Server API, question 2 over the app's route: one thread.
    const api = await call(s, "/threads/doors/runs/wait", { assistant_id: "tutor", command: { resume: "A" } });
    expect(api.status).toBe(200);
    const paused = await call(s, "/threads/doors/state");
    expect((paused.json.interrupts as { value: { question_num: number } }[])[0]?.value.question_num).toBe(2);
    const last = await call(s, "/apps/tutor/resume_chat", { id: "doors", user_response: "B" });
    expect(last.status).toBe(200);
    expect(last.json.interrupted).toBe(false);
    expect(last.json.message).toMatch(/📊 Resultado del test sobre «pruebas»: \d\/2 correctas/);

    expect((await call(s, "/threads/doors")).json.status).toBe("idle");
    const runs = await call(s, "/threads/doors/runs");
    // newest first; the two that paused at a question are a success, as LangGraph reports them
    expect((runs.json as unknown as { status: string }[]).map((r) => r.status)).toEqual([
      "success",
      "success",
      "success",
    ]);
    const values = (await s.graphs.get("tutor")?.graph.getState({ threadId: "doors" }))?.values as {
      user_answers: string[];
      messages: Message[];
    };
    expect(values.user_answers).toEqual(["A", "B"]);
    // every tool call of the conversation has its reply
    const calls = values.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
    const replies = new Set(values.messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => replies.has(c.id))).toBe(true);
  });

  it("a message while a test question waits is refused the same way at every door (policy reject)", async () => {
    const s = await start();
    await call(s, "/threads", { thread_id: "paused" });
    const started = await call(s, "/threads/paused/runs/wait", {
      assistant_id: "tutor",
      input: { messages: [{ role: "user", content: QUIZ.query }], asignatura: "DS" },
    });
    expect(started.status).toBe(200);
    const before = await where(s, "paused");
    expect(before.next).toEqual(["test_session"]);

    const viaApp = await call(s, "/apps/tutor/chat", { query: "¿Qué es Scrum?", id: "paused" });
    expect(viaApp.status).toBe(409);
    expect(viaApp.json.error).toBe("THREAD_PAUSED");
    expect(viaApp.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 2 });
    expect(viaApp.json.reason).toMatch(/POST \/resume_chat/);
    const viaApi = await call(s, "/threads/paused/runs/wait", {
      assistant_id: "tutor",
      input: { messages: [{ role: "user", content: "¿Qué es Scrum?" }] },
    });
    expect(viaApi.status).toBe(409);
    expect(viaApi.json.error).toBe("THREAD_PAUSED");
    expect(await where(s, "paused")).toEqual(before); // nothing written

    const answered = await call(s, "/apps/tutor/resume_chat", { id: "paused", user_response: "A" });
    expect(answered.json.interrupt_info).toMatchObject({ question_num: 2 });
  });

  it("two answers sent at once (a double click) answer one question; the other changes nothing", async () => {
    const s = await start();
    await call(s, "/apps/tutor/chat", { ...QUIZ, query: "Hazme un test de 3 preguntas sobre pruebas", id: "dbl" });
    const [a, b] = await Promise.all([
      call(s, "/apps/tutor/resume_chat", { id: "dbl", user_response: "A" }),
      call(s, "/apps/tutor/resume_chat", { id: "dbl", user_response: "B" }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.json.error).toBe("QUESTION_MISMATCH");
    // while the test runs, its answers live in the paused subgraph's state
    const snapshot = await s.graphs.get("tutor")?.graph.getState({ threadId: "dbl" }, { subgraphs: true });
    const quiz = snapshot?.tasks.find((t) => t.state)?.state?.values as { user_answers: string[] };
    expect(quiz.user_answers).toEqual([a.status === 200 ? "A" : "B"]);
    const state = await call(s, "/threads/dbl/state");
    expect((state.json.interrupts as { value: { question_num: number } }[])[0]?.value.question_num).toBe(2);
  });

  it("with auth on, a conversation belongs to the user who started it, at every door", async () => {
    const s = await start({
      auth: {
        enabled: true,
        credentials: [
          { user: "ana", apiKey: "key-ana" },
          { user: "bo", apiKey: "key-bo" },
        ],
      },
    });
    const ANA = { "x-api-key": "key-ana" };
    const BO = { "x-api-key": "key-bo" };
    expect((await call(s, "/apps/tutor/chat", { ...QUIZ, id: "mine" })).status).toBe(401);
    const started = await call(s, "/apps/tutor/chat", { ...QUIZ, id: "mine" }, ANA);
    expect(started.json.interrupt_info).toMatchObject({ question_num: 1 });
    expect((await call(s, "/threads/mine", undefined, ANA)).json.metadata).toMatchObject({ owner: "ana" });

    expect((await call(s, "/threads/mine", undefined, BO)).status).toBe(404);
    const hijack = await call(s, "/apps/tutor/resume_chat", { id: "mine", user_response: "A" }, BO);
    expect(hijack.status).toBe(404);
    expect((await call(s, "/apps/tutor/chat", { query: "Hola", id: "mine" }, BO)).status).toBe(404);
    expect((await call(s, "/threads/mine/state", undefined, ANA)).json.next).toEqual(["test_session"]);
    const answered = await call(s, "/apps/tutor/resume_chat", { id: "mine", user_response: "A" }, ANA);
    expect(answered.json.interrupt_info).toMatchObject({ question_num: 2 });
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
