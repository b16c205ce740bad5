import { describe, expect, it } from "vitest";
import { LocalRetriever } from "../retrieval/local-retriever.js";
import type { MultipleChoiceTest } from "../state.js";
import { answerLetter, evaluateOffline, parseEvaluationJson } from "./answer-evaluation.js";
import { offlineQuestions, parseQueriesJson, parseQuestionsJson } from "./question-generation.js";

const q: MultipleChoiceTest = {
  question: "¿Qué describe «volumen»?",
  options: ["Plantilla inmutable.", "Almacenamiento que sobrevive al contenedor.", "Un orquestador.", "Un hipervisor."],
  correct_answer: "B",
  explanation: "Un volumen persiste.",
};

describe("grading", () => {
  it.each([
    ["B", "B"],
    ["b)", "B"],
    ["la b", "B"],
    ["Opción C.", "C"],
    ["(d)", "D"],
    ["almacenamiento que sobrevive al contenedor", "B"],
    ["el almacenamiento que sobrevive", "B"],
    ["hipervisor", "D"],
    ["un hipervisor, creo", undefined],
    ["no lo sé", undefined],
    ["bueno", undefined],
  ])("%s → %s", (answer, letter) => {
    expect(answerLetter(answer, q)).toBe(letter);
  });

  it("gives feedback with the right option and the explanation", () => {
    expect(evaluateOffline(q, "b")).toEqual({ isCorrect: true, feedback: "✅ ¡Correcto! Un volumen persiste." });
    expect(evaluateOffline(q, "A").feedback).toBe(
      "❌ No es correcta: elegiste la A. La respuesta correcta es la B) Almacenamiento que sobrevive al contenedor. Un volumen persiste.",
    );
    expect(evaluateOffline(q, "ni idea").feedback).toMatch(/^❌ No he reconocido «ni idea» como una de las opciones/);
  });

  it("reads model JSON, tolerating fences and prose; rejects what is not there", () => {
    expect(parseEvaluationJson('Claro: {"is_correct": true, "feedback": "Bien"}')).toEqual({
      isCorrect: true,
      feedback: "✅ Bien",
    });
    expect(parseEvaluationJson("correcto")).toBeUndefined();
    expect(parseQueriesJson('```json\n["a", " b ", 3]\n```')).toEqual(["a", "b"]);
    expect(parseQueriesJson("[]")).toBeUndefined();
    expect(
      parseQuestionsJson(
        '[{"question":"?","options":["A) x","B) y","C) z","D) w"],"correct_answer":"z","explanation":""},{"question":"bad"}]',
      ),
    ).toEqual([{ question: "?", options: ["x", "y", "z", "w"], correct_answer: "C", explanation: "" }]);
  });
});

describe("offline questions", () => {
  it("are deterministic, four distinct options, the right one at a varying position", () => {
    const pool = new LocalRetriever().passagesOf("DS");
    const a = offlineQuestions({ context: [], pool, count: 5, difficulty: null, seed: 1 });
    expect(a).toEqual(offlineQuestions({ context: [], pool, count: 5, difficulty: null, seed: 1 }));
    // every letter as often as the others (±1), in an order drawn from the seed
    const letters = a.map((x) => x.correct_answer);
    expect([..."ABCD"].map((l) => letters.filter((x) => x === l).length).sort()).toEqual([1, 1, 1, 2]);
    for (const x of a) expect(new Set(x.options).size).toBe(4);
    const advanced = offlineQuestions({ context: [], pool, count: 1, difficulty: "advanced", seed: 1 });
    const sameUnit = pool.filter((p) => p.tema === pool[0]?.tema).map((p) => p.definicion);
    expect(advanced[0]?.options.filter((o) => sameUnit.includes(o))).toHaveLength(3);
  });
});
