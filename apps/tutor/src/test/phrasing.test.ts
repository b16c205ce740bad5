/**
 * Issue 36, tutor findings 1–3, through `POST /chat`: quiz requests in their common phrasings start a
 * quiz with the number of questions asked, on the topic asked (or the whole course), and questions are
 * answered from the passage they mean. The phrasing table (`phrasing-table.ts`, our own sentences) is
 * run with the share answered right printed and a floor asserted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatResponse } from "../chat-response.js";
import { COURSE_PASSAGES } from "../corpus/course-corpus.js";
import { GraphAgent } from "../graph-agent.js";
import { createTutorApp } from "../http-app.js";
import { sentences } from "../retrieval/spanish-text.js";
import type { MultipleChoiceTest } from "../state.js";
import { type Expected, TUTOR_PHRASINGS } from "./phrasing-table.js";

let dir: string;
let agent: GraphAgent;
let app: ReturnType<typeof createTutorApp>;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tutor-phrasing-"));
  agent = GraphAgent.create({ dbPath: join(dir, "tutor.sqlite"), llm: null });
  app = createTutorApp(agent);
});
afterAll(() => {
  agent.close();
  rmSync(dir, { recursive: true, force: true });
});

const byId = new Map(COURSE_PASSAGES.map((p) => [p.id, p]));

async function chat(query: string, asignatura: string): Promise<{ id: string; json: ChatResponse }> {
  const id = `p${++n}`;
  const res = await app.request("/chat", { method: "POST", body: JSON.stringify({ query, id, asignatura }) });
  expect(res.status).toBe(200);
  return { id, json: (await res.json()) as ChatResponse };
}

/** The questions of the running quiz, read from the paused subgraph's state. */
async function quizQuestions(id: string): Promise<MultipleChoiceTest[]> {
  const snapshot = await agent.graph.getState({ threadId: id }, { subgraphs: true });
  const values = snapshot.tasks.find((t) => t.state)?.state?.values as { questions?: MultipleChoiceTest[] } | undefined;
  return values?.questions ?? [];
}

/** Why a reply is not what `expected` says, or undefined when it is. */
async function wrongness(id: string, json: ChatResponse, expected: Expected): Promise<string | undefined> {
  if ("quiz" in expected) {
    if (!json.interrupted) return `no quiz: ${json.message.slice(0, 100)}`;
    const questions = await quizQuestions(id);
    if (json.interrupt_info?.total_questions !== expected.quiz.count || questions.length !== expected.quiz.count) {
      return `${questions.length} questions, expected ${expected.quiz.count}`;
    }
    const sources = questions.map((q) => q.source ?? "");
    if (expected.quiz.whole) {
      const units = new Set(sources.map((s) => byId.get(s)?.tema));
      if (units.size < Math.min(3, expected.quiz.count)) return `whole course, but only units ${[...units].join("; ")}`;
      if (/solo tratan/.test(json.message)) return `a false coverage note: ${json.message.slice(0, 120)}`;
    } else {
      const off = sources.filter((s) => !expected.quiz.sources?.includes(s));
      if (off.length > 0) return `questions off the topic: ${off.join(", ")}`;
    }
    return undefined;
  }
  if (json.interrupted) return "a quiz where an answer was expected";
  if ("guide" in expected) {
    return /^Según la guía docente/.test(json.message)
      ? undefined
      : `not from the guide: ${json.message.slice(0, 100)}`;
  }
  const passage = byId.get(expected.answer);
  const used = sentences(passage?.texto ?? "").some((s) => json.message.includes(s));
  return used ? undefined : `not from ${expected.answer}: ${json.message.slice(0, 100)}`;
}

describe("issue 36 findings, through POST /chat", () => {
  it("a volume question that names docker is answered from the volumes passage", async () => {
    const { json } = await chat("¿para qué sirve un volumen en docker?", "iv");
    expect(json.message).toContain("Un volumen es un almacenamiento persistente");
  });

  it.each([
    ["examíname de Scrum", "DS", { quiz: { count: 1, sources: ["DS-01"] } }],
    ["quiero un test de 10 preguntas de toda la asignatura", "iv", { quiz: { count: 10, whole: true } }],
    [
      "test de 3 preguntas sobre patrones de diseño",
      "DS",
      { quiz: { count: 3, sources: ["DS-09", "DS-10", "DS-11", "DS-12"] } },
    ],
    [
      "¿me puedes hacer un quiz de contenedores?",
      "iv",
      { quiz: { count: 5, sources: ["iv-04", "iv-05", "iv-06", "iv-07", "iv-17"] } },
    ],
    ["test sobre todo el temario", "DS", { quiz: { count: 5, whole: true } }],
    ["hazme un test de infraestructura como código", "iv", { quiz: { count: 2, sources: ["iv-11", "iv-12"] } }],
  ] as const)("%s (%s) starts the quiz asked for", async (query, asignatura, expected) => {
    const { id, json } = await chat(query, asignatura);
    expect(await wrongness(id, json, expected as Expected)).toBeUndefined();
  });
});

describe("the tutor's phrasing table, through POST /chat", () => {
  it("answers at least 90 % of the table right (share printed)", async () => {
    expect(TUTOR_PHRASINGS.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const row of TUTOR_PHRASINGS) {
      const { id, json } = await chat(row.query, row.asignatura);
      const why = await wrongness(id, json, row.expected);
      if (why) wrong.push(`${row.query} → ${why}`);
    }
    const right = TUTOR_PHRASINGS.length - wrong.length;
    console.log(
      `[tutor] phrasing table: ${right}/${TUTOR_PHRASINGS.length} right (${((100 * right) / TUTOR_PHRASINGS.length).toFixed(0)} %)` +
        (wrong.length ? `\n  ${wrong.join("\n  ")}` : ""),
    );
    expect(right / TUTOR_PHRASINGS.length).toBeGreaterThanOrEqual(0.9);
  });
});
