import { foldAccents, searchTerms } from "../retrieval/spanish-text.js";
import type { MultipleChoiceTest } from "../state.js";
import { extractJson, LETTERS } from "./question-generation.js";

/**
 * The outcome of grading one answer.
 *
 * @example
 * const e: Evaluation = { isCorrect: true, feedback: "✅ ¡Correcto! …" };
 */
export interface Evaluation {
  isCorrect: boolean;
  feedback: string;
}

/**
 * A question as the student sees it: the text, then one line per option.
 *
 * @example
 * formatQuestion({ question: "¿…?", options: ["a", "b", "c", "d"], correct_answer: "A", explanation: "" });
 * // "¿…?\nA) a\nB) b\nC) c\nD) d"
 */
export function formatQuestion(q: MultipleChoiceTest): string {
  return [q.question, ...q.options.map((o, i) => `${LETTERS[i]}) ${o}`)].join("\n");
}

/**
 * The option letter an answer chooses: "b", "B)", "la C", "opción d", the text of an option or most
 * of its words. Undefined when the answer names no option.
 *
 * @example
 * answerLetter("la b", question); // "B"
 * answerLetter("Proceso aislado con namespaces…", question); // the letter of that option
 */
export function answerLetter(answer: string, q: MultipleChoiceTest): string | undefined {
  const folded = foldAccents(answer).trim();
  const letter = /^(?:(?:la|opcion|respuesta)\s+)?\(?([a-d])\)?(?=$|[\s).,:;-])/.exec(folded)?.[1];
  if (letter) return letter.toUpperCase();
  if (folded.length < 6) return undefined;
  const index = q.options.findIndex((o) => {
    const option = foldAccents(o);
    return option === folded || option.includes(folded) || folded.includes(option);
  });
  if (index >= 0) return LETTERS[index];
  return closestOption(answer, q);
}

/** The option sharing most of the answer's terms (at least 60 % of them, and more than any other). */
function closestOption(answer: string, q: MultipleChoiceTest): string | undefined {
  const terms = [...new Set(searchTerms(answer))];
  if (terms.length < 2) return undefined;
  const shares = q.options.map((o) => {
    const optionTerms = new Set(searchTerms(o));
    return terms.filter((t) => optionTerms.has(t)).length / terms.length;
  });
  const best = Math.max(...shares);
  if (best < 0.6 || shares.filter((x) => x === best).length > 1) return undefined;
  return LETTERS[shares.indexOf(best)];
}

/**
 * The right answer as "B) text".
 *
 * @example
 * correctAnswerHint(question); // "B) Proceso aislado con namespaces y cgroups…"
 */
export function correctAnswerHint(q: MultipleChoiceTest): string {
  const index = LETTERS.indexOf(q.correct_answer as (typeof LETTERS)[number]);
  return `${q.correct_answer}) ${(q.options[index] ?? "").replace(/\.$/, "")}`;
}

/**
 * Grades an answer without a model: the chosen letter against `correct_answer`, with feedback that
 * gives the right option and the explanation.
 *
 * @example
 * evaluateOffline(question, "B").isCorrect; // true when B is right
 */
export function evaluateOffline(q: MultipleChoiceTest, answer: string): Evaluation {
  const letter = answerLetter(answer, q);
  const explanation = q.explanation ? ` ${q.explanation}` : "";
  if (letter === q.correct_answer) return { isCorrect: true, feedback: `✅ ¡Correcto!${explanation}` };
  const prefix =
    letter === undefined
      ? `❌ No he reconocido «${answer.trim()}» como una de las opciones A, B, C o D.`
      : `❌ No es correcta: elegiste la ${letter}.`;
  return { isCorrect: false, feedback: `${prefix} La respuesta correcta es la ${correctAnswerHint(q)}.${explanation}` };
}

/**
 * Reads a model's grading, JSON `{ "is_correct": boolean, "feedback": string }`; undefined when the
 * reply holds none.
 *
 * @example
 * parseEvaluationJson('{"is_correct": false, "feedback": "Casi."}'); // { isCorrect: false, feedback: "Casi." }
 */
export function parseEvaluationJson(text: string): Evaluation | undefined {
  const value = extractJson(text, "{", "}") as { is_correct?: unknown; feedback?: unknown } | undefined;
  if (typeof value?.is_correct !== "boolean") return undefined;
  const feedback = typeof value.feedback === "string" ? value.feedback.trim() : "";
  return { isCorrect: value.is_correct, feedback: `${value.is_correct ? "✅" : "❌"} ${feedback}`.trim() };
}
