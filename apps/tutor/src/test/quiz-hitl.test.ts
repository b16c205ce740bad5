/**
 * Issue 36, tutor finding 4: a quiz question is also offered in LangChain's HITL request shape
 * (`action_requests` + `review_configs`), so agent-chat-ui and `useStream` — which only give controls to
 * that shape — can answer it with the decisions they offer. Driven with the official SDK `Client` as
 * agent-chat-ui drives a thread (`runs.wait` with `command: { resume: { decisions } }`): edit carries
 * the answer in the action's edited args, reject with a message is the answer, approve passes on the
 * question, reject without a message ends the test; a malformed decision asks again. The app's own
 * `/resume_chat` keeps working on the same kind of pause, with the seed's `interrupt_info` shape.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { createServer, type TrellisServer } from "@trellis/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { MultipleChoiceTest } from "../state.js";

const APP_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

let dir: string;
let server: TrellisServer;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tutor-hitl-"));
  vi.stubEnv("TUTOR_DB_PATH", join(dir, "guides.sqlite"));
  vi.stubEnv("LLM_PROVIDER", "offline");
  vi.stubEnv("RAG_URL", "");
  server = await createServer(
    {
      graphs: { tutor: { module: "./src/server-entry.ts", graph: "buildGraph", routes: "buildRoutes" } },
      saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
      baseDir: APP_DIR,
    },
    { env: {}, workers: 1 },
  );
  url = (await server.listen(0)).url;
});
afterAll(async () => {
  await server.close();
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

interface QuizPause {
  question_num: number;
  total_questions: number;
  action_requests: Array<{ name: string; args: Record<string, unknown>; description: string }>;
  review_configs: Array<{ action_name: string; allowed_decisions: string[] }>;
}

const client = () => new Client({ apiUrl: url, apiKey: null });

async function startQuiz(query: string, asignatura: string): Promise<string> {
  const { thread_id } = await client().threads.create();
  await client().runs.wait(thread_id, "tutor", {
    input: { messages: [{ type: "human", content: query }], asignatura },
  });
  return thread_id;
}

async function pending(threadId: string): Promise<QuizPause | undefined> {
  const state = await client().threads.getState(threadId, undefined, { subgraphs: true });
  return state.tasks.flatMap((t) => t.interrupts.map((i) => i.value as QuizPause))[0];
}

/** The running quiz's questions and answers so far, from the subgraph's state. */
async function quiz(
  threadId: string,
): Promise<{ questions: MultipleChoiceTest[]; user_answers: string[]; scores: boolean[] }> {
  const state = await client().threads.getState(threadId, undefined, { subgraphs: true });
  const sub = state.tasks.find((t) => t.state)?.state as { values: Record<string, unknown> } | undefined;
  return (sub?.values ?? state.values) as {
    questions: MultipleChoiceTest[];
    user_answers: string[];
    scores: boolean[];
  };
}

async function decide(threadId: string, decision: unknown): Promise<Record<string, unknown>> {
  return (await client().runs.wait(threadId, "tutor", {
    command: { resume: { decisions: [decision] } },
  })) as Record<string, unknown>;
}

const lastMessage = (values: Record<string, unknown>) =>
  ((values.messages as Array<{ content: string }> | undefined) ?? []).at(-1)?.content ?? "";

describe("quiz questions in LangChain's HITL shape, answered with the SDK Client", () => {
  it("offers the question as an action with approve / edit / reject", async () => {
    const threadId = await startQuiz("Hazme un test de 3 preguntas sobre contenedores", "iv");
    const pause = await pending(threadId);
    expect(pause?.question_num).toBe(1);
    expect(pause?.action_requests).toEqual([
      {
        name: "answer_question",
        args: { answer: "" },
        description: expect.stringMatching(/^Pregunta 1\/3: ¿.+\nA\) .+\nB\) /s),
      },
    ]);
    expect(pause?.review_configs).toEqual([
      { action_name: "answer_question", allowed_decisions: ["approve", "edit", "reject"] },
    ]);
  });

  it("edit answers with args.answer, reject + message answers with the message, approve passes, and the test ends", async () => {
    const threadId = await startQuiz("Hazme un test de 3 preguntas sobre contenedores", "iv");
    const { questions } = await quiz(threadId);
    const [q1, q2] = questions as [MultipleChoiceTest, MultipleChoiceTest];

    await decide(threadId, {
      type: "edit",
      edited_action: { name: "answer_question", args: { answer: q1.correct_answer } },
    });
    expect((await pending(threadId))?.question_num).toBe(2);
    const wrong = q2.correct_answer === "A" ? "B" : "A";
    await decide(threadId, { type: "reject", message: `la ${wrong.toLowerCase()}` });
    expect((await pending(threadId))?.question_num).toBe(3);
    const done = await decide(threadId, { type: "approve" });
    expect(await pending(threadId)).toBeUndefined();
    expect(lastMessage(done)).toContain("📊 Resultado del test sobre «contenedores»: 1/3 correctas (33 %).");
    expect(lastMessage(done)).toContain(
      `2. ❌ ${q2.question} (tu respuesta: la ${wrong.toLowerCase()}, correcta: ${q2.correct_answer})`,
    );
    expect(lastMessage(done)).toContain("(tu respuesta: (sin respuesta)");
  });

  it("reject without a message ends the test; the rest count as unanswered", async () => {
    const threadId = await startQuiz("Hazme un test de 3 preguntas sobre contenedores", "iv");
    const { questions } = await quiz(threadId);
    await decide(threadId, {
      type: "edit",
      editedAction: { name: "answer_question", args: { answer: questions[0]?.correct_answer } },
    });
    const done = await decide(threadId, { type: "reject" });
    expect(await pending(threadId)).toBeUndefined();
    expect(lastMessage(done)).toContain("⏹️ Test terminado en la pregunta 2.");
    expect(lastMessage(done)).toContain("1/3 correctas");
    expect(lastMessage(done)).toContain(`3. ⏭️ ${questions[2]?.question}`);
  });

  it("a malformed decision asks the same question again, saying why; nothing is counted", async () => {
    const threadId = await startQuiz("Hazme un test de 2 preguntas sobre contenedores", "iv");
    await decide(threadId, { type: "edit", edited_action: { name: "answer_question", args: {} } });
    expect((await pending(threadId))?.question_num).toBe(1);
    const shown = async () => lastMessage((await quiz(threadId)) as unknown as Record<string, unknown>);
    expect(await shown()).toContain("Una edición necesita la respuesta en `answer`");
    expect((await quiz(threadId)).user_answers).toEqual([]);
    await decide(threadId, { type: "respond", message: "B" });
    expect((await pending(threadId))?.question_num).toBe(1);
    expect(await shown()).toContain("not one of approve, edit, reject");
    expect((await quiz(threadId)).user_answers).toEqual([]);
  });

  it("the app's /resume_chat answers the same pause with text, and its interrupt_info keeps the seed's keys", async () => {
    const chat = async (path: string, body: unknown) =>
      (await (
        await fetch(`${url}/apps/tutor${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        })
      ).json()) as { interrupt_info: Record<string, unknown> | null; interrupted: boolean };
    const started = await chat("/chat", {
      query: "Hazme un test de 2 preguntas sobre contenedores",
      id: "own-door",
      asignatura: "iv",
    });
    expect(started.interrupt_info).toMatchObject({ action: "answer_question", question_num: 1, kind: "choose" });
    expect(started.interrupt_info).not.toHaveProperty("action_requests");
    const next = await chat("/resume_chat", { id: "own-door", user_response: "A" });
    expect(next.interrupt_info).toMatchObject({ question_num: 2 });
  });
});
