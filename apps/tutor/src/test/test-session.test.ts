import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TrellisError } from "@trellis/checkpoint";
import type { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChatResponse } from "../chat-response.js";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";
import type { MultipleChoiceTest } from "../state.js";

let dir: string;
const agents: GraphAgent[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-test-"));
});
afterEach(() => {
  for (const a of agents.splice(0)) a.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A new agent (a "server process") on the test's SQLite file. */
function startAgent(): { agent: GraphAgent; app: Hono } {
  const agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null });
  agents.push(agent);
  return { agent, app: createTutorApp(agent) };
}

async function post(
  app: Hono,
  path: string,
  body: unknown,
): Promise<{ status: number; json: ChatResponse & Record<string, unknown> }> {
  const res = await app.request(path, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as ChatResponse & Record<string, unknown> };
}

/** The questions of the running test, read from the paused subgraph's state. */
async function runningQuestions(agent: GraphAgent, id: string): Promise<MultipleChoiceTest[]> {
  const snapshot = await agent.graph.getState({ threadId: id }, { subgraphs: true });
  const values = snapshot.tasks.find((t) => t.state)?.state?.values as { questions: MultipleChoiceTest[] };
  return values.questions;
}

const wrong = (q: MultipleChoiceTest) => (q.correct_answer === "A" ? "B" : "A");
const optionText = (q: MultipleChoiceTest) => q.options["ABCD".indexOf(q.correct_answer)] as string;

describe("test session through /chat and /resume_chat", () => {
  it("runs a 5-question test: one interrupt per question, feedback, scores and the final summary", async () => {
    const { agent, app } = startAgent();
    const start = await post(app, "/chat", {
      query: "Hazme un test de 5 preguntas sobre contenedores",
      id: "ana",
      asignatura: "iv",
    });
    expect(start.status).toBe(200);
    expect(start.json.interrupted).toBe(true);
    expect(start.json.interrupt_info).toEqual({
      action: "answer_question",
      question_num: 1,
      total_questions: 5,
      question_text: expect.stringMatching(
        /^¿Qué afirmación describe mejor «contenedor»\?\nA\) .+\nB\) .+\nC\) .+\nD\) .+$/,
      ),
      // declared as a choice: every door offers the four options as they are
      kind: "choose",
      question: "¿Qué afirmación describe mejor «contenedor»?",
      options: [
        { key: "A", label: expect.any(String) },
        { key: "B", label: expect.any(String) },
        { key: "C", label: expect.any(String) },
        { key: "D", label: expect.any(String) },
      ],
    });
    expect(start.json.message).toMatch(/^Empezamos el test sobre «contenedores»: 5 preguntas\.\n\nPregunta 1\/5: /);

    const questions = await runningQuestions(agent, "ana");
    expect(questions).toHaveLength(5);
    for (const q of questions) {
      expect(q.options).toHaveLength(4);
      expect(new Set(q.options).size).toBe(4);
      expect(q.correct_answer).toMatch(/^[ABCD]$/);
    }
    // right (letter), wrong, right ("la x"), right (the option's text), wrong
    const [q1, q2, q3, q4, q5] = questions as [
      MultipleChoiceTest,
      MultipleChoiceTest,
      MultipleChoiceTest,
      MultipleChoiceTest,
      MultipleChoiceTest,
    ];
    const answers = [q1.correct_answer, wrong(q2), `la ${q3.correct_answer.toLowerCase()}`, optionText(q4), wrong(q5)];

    const replies: ChatResponse[] = [];
    for (const [i, answer] of answers.entries()) {
      const { status, json } = await post(app, "/resume_chat", { id: "ana", user_response: answer });
      expect(status).toBe(200);
      replies.push(json);
      if (i < 4) {
        expect(json.interrupted).toBe(true);
        expect(json.interrupt_info?.question_num).toBe(i + 2);
        expect(json.interrupt_info?.question_text).toBe(
          [questions[i + 1]?.question, ...(questions[i + 1]?.options ?? []).map((o, k) => `${"ABCD"[k]}) ${o}`)].join(
            "\n",
          ),
        );
        expect(json.message).toContain(`Pregunta ${i + 2}/5: `);
      }
    }
    expect(replies.map((r) => [...r.message][0])).toEqual(["✅", "❌", "✅", "✅", "❌"]);
    expect(replies[1]?.message).toContain(`La respuesta correcta es la ${q2.correct_answer}) `);

    const final = replies[4] as ChatResponse;
    expect(final.interrupted).toBe(false);
    expect(final.interrupt_info).toBeNull();
    expect(final.message).toContain("📊 Resultado del test sobre «contenedores»: 3/5 correctas (60 %).");
    expect(final.message).toContain(
      `2. ❌ ${q2.question} (tu respuesta: ${wrong(q2)}, correcta: ${q2.correct_answer})`,
    );
    expect(final.message).toMatch(/Vas bien, pero repasa las preguntas que has fallado\.$/);

    const state = (await agent.graph.getState({ threadId: "ana" })).values;
    expect(state.scores).toEqual([true, false, true, true, false]);
    expect(state.user_answers).toEqual(answers);
    expect(state.feedback_history).toHaveLength(5);
    expect(state.topic).toBe("contenedores");
    expect(state.num_questions).toBe(5);
    expect(state.current_question_index).toBe(5);
    // The generate_test call is answered, so the history stays valid for any provider.
    const toolMessage = state.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toBe("Test iniciado: 5 preguntas sobre «contenedores».");
    expect(state.messages.at(-1)?.content).toBe(final.message);

    // The thread goes on as a normal conversation after the test.
    const after = await post(app, "/chat", { query: "¿Qué es un volumen?", id: "ana" });
    expect(after.json.message).toContain("Un volumen es un almacenamiento persistente");
  });

  it("a restarted server resumes the test at the right question, without regenerating it", async () => {
    const first = startAgent();
    await post(first.app, "/chat", {
      query: "Ponme a prueba con un examen de 5 preguntas sobre toda la asignatura",
      id: "luis",
      asignatura: "DS",
    });
    const questions = await runningQuestions(first.agent, "luis");
    await post(first.app, "/resume_chat", { id: "luis", user_response: questions[0]?.correct_answer });
    const second = await post(first.app, "/resume_chat", {
      id: "luis",
      user_response: wrong(questions[1] as MultipleChoiceTest),
    });
    expect(second.json.interrupt_info?.question_num).toBe(3);
    first.agent.close();
    agents.splice(agents.indexOf(first.agent), 1);

    // A new process: new agent, new graph, same SQLite file.
    const restarted = startAgent();
    expect(await restarted.agent.pendingInterrupt("luis")).toMatchObject({ question_num: 3, total_questions: 5 });
    expect(await runningQuestions(restarted.agent, "luis")).toEqual(questions);
    const busy = await post(restarted.app, "/chat", { query: "¿Qué es Scrum?", id: "luis" });
    expect(busy.status).toBe(409);
    expect(busy.json.error).toBe("THREAD_PAUSED");
    expect(busy.json.interrupt_info).toMatchObject({ question_num: 3 });

    let reply = await post(restarted.app, "/resume_chat", { id: "luis", user_response: questions[2]?.correct_answer });
    expect(reply.json.message).toMatch(/^✅ ¡Correcto!/);
    expect(reply.json.interrupt_info?.question_num).toBe(4);
    reply = await post(restarted.app, "/resume_chat", { id: "luis", user_response: questions[3]?.correct_answer });
    reply = await post(restarted.app, "/resume_chat", { id: "luis", user_response: questions[4]?.correct_answer });
    expect(reply.json.interrupted).toBe(false);
    expect(reply.json.message).toContain("4/5 correctas (80 %)");
    const state = (await restarted.agent.graph.getState({ threadId: "luis" })).values;
    expect(state.scores).toEqual([true, false, true, true, true]);
    expect(state.questions).toEqual(questions);
  });

  it("a refusal without the pending question (a queued run's error) still answers with interrupt_info", async () => {
    const { agent, app } = startAgent();
    await post(app, "/chat", { query: "Hazme un test de 2 preguntas sobre pruebas", id: "q", asignatura: "DS" });
    // what a run refused by the policy after waiting in the server's queue reports: a code and a message
    const queued = new GraphAgent(agent.graph, {
      turns: async () => {
        throw new TrellisError("THREAD_PAUSED", "refused by the paused-input policy");
      },
    });
    const refused = await post(createTutorApp(queued), "/chat", { query: "¿Qué es Scrum?", id: "q" });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toBe("THREAD_PAUSED");
    expect(refused.json.reason).toBe(
      'Thread "q" is waiting for the answer to question 1 of 2 of a test: send it with POST /resume_chat.',
    );
    expect(refused.json.interrupt_info).toMatchObject({ action: "answer_question", question_num: 1 });
  });

  it("a test on the whole subject draws on all its passages, and the number of questions is clamped", async () => {
    const { agent, app } = startAgent();
    const r = await post(app, "/chat", {
      query: "Hazme un test de 40 preguntas sobre la asignatura",
      id: "k",
      asignatura: "iv",
    });
    expect(r.json.interrupt_info).toMatchObject({ question_num: 1, total_questions: 10 });
    const questions = await runningQuestions(agent, "k");
    expect(new Set(questions.map((q) => q.source)).size).toBe(10);
  });

  it("ends the turn with an explanation when no question can be generated", async () => {
    const { app } = startAgent();
    const r = await post(app, "/chat", { query: "Hazme un test sobre historia", id: "h", asignatura: "historia" });
    expect(r.json.interrupted).toBe(false);
    expect(r.json.message).toBe(
      "Los apuntes de la asignatura no tratan «historia», así que no te hago un test sobre ese tema: las preguntas saldrían de otra cosa.",
    );
  });
});
