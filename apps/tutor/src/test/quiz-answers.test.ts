import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer, type TrellisServer } from "@trellis/server";
import type { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChatResponse } from "../chat-response.js";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
const agents: GraphAgent[] = [];
let server: TrellisServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-quiz-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
});
afterEach(async () => {
  for (const a of agents.splice(0)) a.close();
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

type Reply = ChatResponse & { error?: string; reason?: string };

/** The standalone tutor (the seed's FastAPI app): `bin/start.js` serves this. */
function standalone(): (path: string, body: unknown) => Promise<{ status: number; json: Reply }> {
  const agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null });
  agents.push(agent);
  return poster(createTutorApp(agent), "");
}

/** The tutor inside the Trellis server, at /apps/tutor/. */
async function served(): Promise<(path: string, body: unknown) => Promise<{ status: number; json: Reply }>> {
  server = await createServer(
    {
      graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
  return poster(server.app, "/apps/tutor");
}

function poster(app: { request: Hono["request"] }, prefix: string) {
  return async (path: string, body: unknown) => {
    const res = await app.request(`${prefix}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Reply };
  };
}

const QUIZ = { query: "Hazme un test de 4 preguntas sobre contenedores", asignatura: "iv" };

describe("an answer is tied to its question (issue 23, tutor finding 2)", () => {
  for (const [door, make] of [
    ["standalone", async () => standalone()],
    ["served", served],
  ] as const) {
    it(`${door}: 4 /resume_chat sent at once for question 1 answer question 1 only; the others are 409s`, async () => {
      const post = await make();
      const started = await post("/chat", { ...QUIZ, id: "clicks" });
      expect(started.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 4 });
      const replies = await Promise.all(
        ["A", "B", "C", "D"].map((a) => post("/resume_chat", { id: "clicks", user_response: a, question_num: 1 })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
      for (const refused of replies.filter((r) => r.status === 409)) {
        expect(refused.json.error).toBe("QUESTION_MISMATCH");
        expect(refused.json.interrupt_info).toMatchObject({ question_num: 2 });
      }
      const ok = replies.find((r) => r.status === 200);
      expect(ok?.json.interrupt_info).toMatchObject({ question_num: 2 });
      // Question 2 is still waiting: the next answer answers it.
      const next = await post("/resume_chat", { id: "clicks", user_response: "A", question_num: 2 });
      expect(next.json.interrupt_info).toMatchObject({ question_num: 3 });
    });

    it(`${door}: a double click without question_num answers one question, not two`, async () => {
      const post = await make();
      await post("/chat", { ...QUIZ, id: "double" });
      const replies = await Promise.all([
        post("/resume_chat", { id: "double", user_response: "A" }),
        post("/resume_chat", { id: "double", user_response: "A" }),
      ]);
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(replies.find((r) => r.status === 409)?.json.error).toBe("QUESTION_MISMATCH");
    });

    it(`${door}: question_num of a question already answered is a 409 that changes nothing`, async () => {
      const post = await make();
      await post("/chat", { ...QUIZ, id: "late" });
      await post("/resume_chat", { id: "late", user_response: "A", question_num: 1 });
      const late = await post("/resume_chat", { id: "late", user_response: "B", question_num: 1 });
      expect(late.status).toBe(409);
      expect(late.json).toMatchObject({ error: "QUESTION_MISMATCH", interrupt_info: { question_num: 2 } });
      expect(late.json.reason).toMatch(/question 1.*question 2 is waiting/);
      const next = await post("/resume_chat", { id: "late", user_response: "C", question_num: 2 });
      expect(next.json.interrupt_info).toMatchObject({ question_num: 3 });
    });

    it(`${door}: an unrecognised answer re-asks the same question with the reason`, async () => {
      const post = await make();
      const started = await post("/chat", { ...QUIZ, id: "typo" });
      const question = started.json.interrupt_info?.question_text ?? "";
      for (const typo of ["E", "asdfgh"]) {
        const again = await post("/resume_chat", { id: "typo", user_response: typo });
        expect(again.status).toBe(200);
        expect(again.json.interrupt_info).toMatchObject({ question_num: 1, question_text: question });
        expect(again.json.message).toContain(`No he reconocido «${typo}» como una de las opciones A, B, C o D`);
        expect(again.json.message).toContain(question);
      }
      const answered = await post("/resume_chat", { id: "typo", user_response: "A" });
      expect(answered.json.interrupt_info).toMatchObject({ question_num: 2 });
      let last = answered;
      for (const letter of ["A", "A", "A"]) last = await post("/resume_chat", { id: "typo", user_response: letter });
      // The summary lists four answers, all letters: the typos did not use up questions.
      expect(last.json.interrupted).toBe(false);
      expect(last.json.message).toMatch(/📊 Resultado del test sobre «contenedores»: \d\/4 correctas/);
      expect(last.json.message.match(/tu respuesta: A\b/g)).toHaveLength(4);
    });
  }
});

describe("offline quizzes are honest (issue 23, tutor finding 1)", () => {
  /** Answers every question of the quiz on `id` with `letters` in turn; the closing summary. */
  async function answerAll(post: Awaited<ReturnType<typeof served>>, id: string, letters: readonly string[]) {
    let i = 0;
    let reply = await post("/resume_chat", { id, user_response: letters[i++ % letters.length] });
    while (reply.json.interrupted)
      reply = await post("/resume_chat", { id, user_response: letters[i++ % letters.length] });
    return reply.json.message;
  }
  /** The right letters of a finished quiz, read from its summary. */
  function rightLetters(summary: string): string[] {
    return [...summary.matchAll(/^\d+\. (✅|❌) .*\(tu respuesta: ([A-D])(?:, correcta: ([A-D]))?\)$/gm)].map(
      (m) => (m[1] === "✅" ? m[2] : m[3]) as string,
    );
  }

  it("answering B, A, D, C… without reading does not pass: the right letters change from quiz to quiz", async () => {
    const post = await served();
    const orders: string[] = [];
    let aced = 0;
    for (let n = 1; n <= 6; n++) {
      const started = await post("/chat", { ...QUIZ, id: `blind-${n}` });
      expect(started.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 4 });
      const summary = await answerAll(post, `blind-${n}`, ["B", "A", "D", "C"]);
      if (summary.includes("4/4 correctas")) aced++;
      const letters = rightLetters(summary);
      expect([...letters].sort()).toEqual(["A", "B", "C", "D"]); // each letter once in a quiz of four
      orders.push(letters.join(""));
    }
    expect(aced).toBeLessThan(6);
    expect(new Set(orders).size).toBeGreaterThan(1);
  });

  it("a topic the course does not cover is declined, saying what the course covers", async () => {
    const post = await served();
    const reply = await post("/chat", {
      query: "Hazme un test sobre la Revolución Francesa",
      id: "fr",
      asignatura: "DS",
    });
    expect(reply.status).toBe(200);
    expect(reply.json.interrupted).toBe(false);
    expect(reply.json.message).toContain("Los apuntes de la asignatura no tratan «la Revolución Francesa»");
    expect(reply.json.message).toContain("Tema 3. Patrones de diseño");
  });

  it("a topic with few passages gets fewer questions, all on the topic, and says so", async () => {
    const post = await served();
    const started = await post("/chat", {
      query: "Hazme un test de 5 preguntas sobre patrones de diseño",
      id: "patterns",
      asignatura: "DS",
    });
    expect(started.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 4 });
    expect(started.json.message).toContain(
      "Los apuntes solo tratan 4 conceptos de «patrones de diseño», así que el test tiene 4 preguntas en lugar de 5.",
    );
    const asked = [started.json.interrupt_info?.question_text ?? ""];
    let reply = started;
    while (reply.json.interrupted) {
      reply = await post("/resume_chat", { id: "patterns", user_response: "A" });
      if (reply.json.interrupted) asked.push(reply.json.interrupt_info?.question_text ?? "");
    }
    expect(asked).toHaveLength(4);
    for (const q of asked) expect(q).toMatch(/^¿Qué afirmación describe mejor «patrón /);
  });
});
