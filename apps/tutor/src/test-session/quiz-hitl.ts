import { editedActionOf, hitlRequest, readDecisions, type ToolReviewRequest } from "@trellis/agents";
import type { MultipleChoiceTest } from "../state.js";
import { formatQuestion } from "./answer-evaluation.js";

/**
 * The action name of a quiz question in LangChain's HITL request.
 *
 * @example
 * payload.action_requests[0]?.name; // "answer_question"
 */
export const QUIZ_ACTION = "answer_question";

const HELP =
  "Editar (edit): escribe tu respuesta (A, B, C o D) en `answer`. Rechazar con un mensaje (reject + message): el " +
  "mensaje es tu respuesta. Aprobar (approve): no sé la respuesta, pasa a la siguiente (cuenta como no acertada). " +
  "Rechazar sin mensaje: terminar el test ahora.";

/**
 * A quiz question as LangChain's HITL request (both spellings of its keys), so agent-chat-ui and
 * `useStream` pages offer controls for it: the student edits `answer`, or rejects with the answer as the
 * message; approve passes on the question; reject without a message ends the test.
 *
 * @example
 * quizHitlRequest(q, 1, 5).action_requests[0]?.args; // { answer: "" }
 */
export function quizHitlRequest(q: MultipleChoiceTest, num: number, total: number): ToolReviewRequest {
  return hitlRequest([
    {
      name: QUIZ_ACTION,
      args: { answer: "" },
      description: `Pregunta ${num}/${total}: ${formatQuestion(q)}\n\n${HELP}`,
      allowedDecisions: ["approve", "edit", "reject"],
    },
  ]);
}

/** What a resume value at a quiz question asks for. */
export type QuizReply =
  | { kind: "answer"; text: string }
  | { kind: "skip" }
  | { kind: "stop" }
  | { kind: "invalid"; reason: string };

/**
 * Reads a resume value at a quiz question: text (the app's own doors, the CLI, the studio) is the
 * answer; `{ decisions: [...] }` (agent-chat-ui, `useStream`) is edit → `answer`, reject with a message
 * → the message, approve → pass, reject without a message → stop; anything else is invalid and the
 * question is asked again with the reason.
 *
 * @example
 * readQuizReply({ decisions: [{ type: "edit", edited_action: { name: "answer_question", args: { answer: "B" } } }] });
 * // { kind: "answer", text: "B" }
 */
export function readQuizReply(raw: unknown): QuizReply {
  if (typeof raw === "string") return { kind: "answer", text: raw };
  if (typeof raw !== "object" || raw === null || !("decisions" in raw)) {
    return { kind: "answer", text: JSON.stringify(raw) ?? String(raw) };
  }
  const read = readDecisions(raw, [{ name: QUIZ_ACTION, allowedDecisions: ["approve", "edit", "reject"] }]);
  if (!read.ok) return { kind: "invalid", reason: read.reason };
  const decision = read.decisions[0];
  switch (decision?.type) {
    case "approve":
      return { kind: "skip" };
    case "reject": {
      const message = decision.message?.trim() ?? "";
      return message === "" ? { kind: "stop" } : { kind: "answer", text: message };
    }
    case "edit": {
      const answer = editedActionOf(decision)?.args.answer;
      return typeof answer === "string" && answer.trim() !== ""
        ? { kind: "answer", text: answer.trim() }
        : { kind: "invalid", reason: 'Una edición necesita la respuesta en `answer`, por ejemplo { "answer": "B" }.' };
    }
    default:
      return { kind: "invalid", reason: `${JSON.stringify(decision)} no es una decisión.` };
  }
}
