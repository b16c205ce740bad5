import { systemMessage, userMessage } from "@trellis/models";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GuideStore } from "../guides/guide-store.js";
import { LocalRetriever } from "../retrieval/local-retriever.js";
import { createOfflineTutorModel } from "./offline-tutor-model.js";
import { SYSTEM_PROMPT_BASIC } from "./prompts.js";
import { createTutorTools } from "./tutor-tools.js";

const tools = createTutorTools({
  retriever: new LocalRetriever(),
  guides: new GuideStore(new BetterSqlite3(":memory:")),
}).all;
const ask = (text: string) =>
  createOfflineTutorModel().invoke([systemMessage(SYSTEM_PROMPT_BASIC("DS")), userMessage(text)], { tools });

describe("the offline tutor model", () => {
  it("routes test requests, guide questions and course questions to their tools", async () => {
    expect((await ask("Hazme un test de 3 preguntas sobre patrones de diseño")).toolCalls?.[0]).toMatchObject({
      name: "generate_test",
      args: { topic: "patrones de diseño", num_questions: 3 },
    });
    expect((await ask("Ponme a prueba")).toolCalls?.[0]).toMatchObject({
      name: "generate_test",
      args: { topic: "toda la asignatura", num_questions: 5 },
    });
    expect((await ask("¿Cuál es el horario de tutorías?")).toolCalls?.[0]).toMatchObject({
      name: "get_guia",
      args: { seccion: "tutorias" },
    });
    expect((await ask("¿Qué es un mock?")).toolCalls?.[0]).toMatchObject({
      name: "rag_search",
      args: { query: "¿Qué es un mock?" },
    });
    expect((await ask("Buenos días")).content).toMatch(/^¡Hola!/);
  });

  it("keeps a bounded record of its calls, so a long-running server does not grow", async () => {
    const model = createOfflineTutorModel();
    for (let i = 0; i < 30; i++) await model.invoke([userMessage(`hola ${i}`)]);
    expect(model.calls.length).toBeLessThanOrEqual(20);
  });
});
