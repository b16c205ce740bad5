import { subjectName } from "../corpus/course-corpus.js";
import type { DifficultyLevel } from "../state.js";

const TOOLS_GUIDE = `Herramientas:
- rag_search: busca en los documentos de la asignatura. Úsala para cualquier pregunta sobre el contenido del curso.
- get_guia: consulta la guía docente (evaluación, profesorado, temario, bibliografía, tutorías). La asignatura se añade sola.
- generate_test: empieza un test de opción múltiple cuando el estudiante lo pida (tema y número de preguntas). Si pide un test de toda la asignatura, de todo el temario o no dice tema, usa topic "toda la asignatura"; usa el número de preguntas que pida.
Responde siempre en español y solo con información de los documentos recuperados; si no aparece, dilo.`;

/** Marker line each system prompt carries with its level (the offline model reads it). */
const LEVEL_LINE: Record<DifficultyLevel, string> = {
  basic: "Nivel de la pregunta: básico",
  intermediate: "Nivel de la pregunta: intermedio",
  advanced: "Nivel de la pregunta: avanzado",
};

/**
 * The system prompt for basic questions: short, direct, one idea.
 *
 * @example
 * SYSTEM_PROMPT_BASIC("iv").includes("Infraestructura Virtual"); // true
 */
export function SYSTEM_PROMPT_BASIC(asignatura: string | null): string {
  return `Eres el asistente docente de la asignatura ${subjectName(asignatura)}.
${LEVEL_LINE.basic}. Responde de forma breve y directa, en dos o tres frases, con una definición clara.
${TOOLS_GUIDE}`;
}

/**
 * The system prompt for intermediate questions: explanation with an example.
 *
 * @example
 * SYSTEM_PROMPT_INTERMEDIATE("DS").includes("ejemplo"); // true
 */
export function SYSTEM_PROMPT_INTERMEDIATE(asignatura: string | null): string {
  return `Eres el asistente docente de la asignatura ${subjectName(asignatura)}.
${LEVEL_LINE.intermediate}. Explica el concepto paso a paso y añade un ejemplo breve.
${TOOLS_GUIDE}`;
}

/**
 * The chain-of-thought prompt for advanced questions: reasoning inside `<thinking>`, the answer inside
 * `<answer>` (the think node keeps only the answer in the conversation and the reasoning in `thinking`).
 *
 * @example
 * SYSTEM_PROMPT_COT("iv").includes("<thinking>"); // true
 */
export function SYSTEM_PROMPT_COT(asignatura: string | null): string {
  return `Eres el asistente docente de la asignatura ${subjectName(asignatura)}.
${LEVEL_LINE.advanced}. Es una pregunta que requiere razonamiento.
Cuando tengas la información necesaria, razona primero dentro de <thinking>...</thinking> (qué se pregunta,
qué dicen los documentos, cómo se relacionan) y da después la respuesta final dentro de <answer>...</answer>.
${TOOLS_GUIDE}`;
}

/**
 * The system prompt for a difficulty level (the seed's `get_adaptive_prompt`).
 *
 * @example
 * getAdaptivePrompt("basic", "iv") === SYSTEM_PROMPT_BASIC("iv"); // true
 */
export function getAdaptivePrompt(level: DifficultyLevel, asignatura: string | null): string {
  if (level === "basic") return SYSTEM_PROMPT_BASIC(asignatura);
  if (level === "advanced") return SYSTEM_PROMPT_COT(asignatura);
  return SYSTEM_PROMPT_INTERMEDIATE(asignatura);
}

/**
 * Reads the level marker back from a system prompt (the offline model adapts its answer to it).
 *
 * @example
 * levelOfPrompt(SYSTEM_PROMPT_COT("iv")); // "advanced"
 */
export function levelOfPrompt(prompt: string | undefined): DifficultyLevel | undefined {
  if (!prompt) return undefined;
  for (const [level, line] of Object.entries(LEVEL_LINE)) if (prompt.includes(line)) return level as DifficultyLevel;
  return undefined;
}

/**
 * Asks the model for search queries that cover a test topic; the answer must be a JSON list of strings.
 *
 * @example
 * TEST_QUERY_GENERATION_PROMPT({ topic: "contenedores", numQueries: 3, asignatura: "iv" });
 */
export function TEST_QUERY_GENERATION_PROMPT(args: {
  topic: string;
  numQueries: number;
  asignatura: string | null;
}): string {
  return `Vas a preparar un test sobre "${args.topic}" de la asignatura ${subjectName(args.asignatura)}.
Escribe ${args.numQueries} consultas de búsqueda distintas que recuperen de los apuntes lo necesario para las preguntas.
Responde SOLO con una lista JSON de cadenas, por ejemplo ["consulta 1", "consulta 2"].`;
}

/**
 * Asks the model for multiple-choice questions grounded in the retrieved context; the answer must be
 * a JSON list of `{ question, options[4], correct_answer, explanation }`.
 *
 * @example
 * TEST_QUESTION_GENERATION_PROMPT({ topic: "SOLID", numQuestions: 5, difficulty: "intermediate", context: "…" });
 */
export function TEST_QUESTION_GENERATION_PROMPT(args: {
  topic: string;
  numQuestions: number;
  difficulty: string;
  context: string;
}): string {
  return `Genera ${args.numQuestions} preguntas de opción múltiple sobre "${args.topic}" (dificultad: ${args.difficulty}),
basadas SOLO en este contexto:
${args.context}

Cada pregunta tiene exactamente 4 opciones y una sola correcta. Responde SOLO con una lista JSON:
[{"question": "...", "options": ["...", "...", "...", "..."], "correct_answer": "A", "explanation": "..."}]`;
}

/**
 * Asks the model to grade one answer; the answer must be JSON `{ "is_correct": boolean, "feedback": string }`.
 *
 * @example
 * TEST_EVALUATION_PROMPT({ topic: "Scrum", questionText: "…", userAnswer: "B", correctAnswerHint: "B) …", ragContext: "…" });
 */
export function TEST_EVALUATION_PROMPT(args: {
  topic: string;
  questionText: string;
  userAnswer: string;
  correctAnswerHint: string;
  ragContext: string;
}): string {
  return `Evalúa la respuesta de un estudiante a una pregunta de un test sobre "${args.topic}".
Pregunta:
${args.questionText}
Respuesta del estudiante: ${args.userAnswer}
Respuesta correcta: ${args.correctAnswerHint}
Contexto de los apuntes:
${args.ragContext}

Responde SOLO con JSON: {"is_correct": true|false, "feedback": "explicación breve y amable en español"}`;
}
