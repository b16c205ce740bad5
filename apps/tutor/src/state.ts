import { channel, type StateOf } from "@trellis/core";
import type { Message } from "@trellis/models";
import { z } from "zod";

/**
 * A multiple-choice question of a test session (the seed's `MultipleChoiceTest`).
 *
 * @example
 * const q: MultipleChoiceTest = {
 *   question: "¿Qué describe «volumen»?", options: ["…", "…", "…", "…"], correct_answer: "B",
 *   explanation: "Un volumen es…", source: "iv-07",
 * };
 */
export interface MultipleChoiceTest {
  question: string;
  /** Four options, shown as A) to D). */
  options: string[];
  /** The letter of the right option: "A", "B", "C" or "D". */
  correct_answer: string;
  /** Why it is right, shown as feedback. */
  explanation: string;
  /** Id of the passage the question came from, when known. */
  source?: string;
}

/**
 * A document chunk retrieved by RAG, as it lands in `context`.
 *
 * @example
 * const c: ContextChunk = { content: "Un volumen es…", metadata: { source: "iv-07" } };
 */
export interface ContextChunk {
  content: string;
  metadata: Record<string, unknown>;
}

/**
 * Difficulty of a user query: the think node picks its system prompt from it.
 *
 * @example
 * const level: DifficultyLevel = "advanced";
 */
export type DifficultyLevel = "basic" | "intermediate" | "advanced";

const list = <T>() => channel.value<T[]>(() => []);

/**
 * The keys a caller may set (a run's input, a state update), as zod schemas declared on their
 * channels: a wrong value is refused with `INVALID_STATE` naming the key before anything is written (a
 * 400 over the Agent Server API), and `getSchemas()` shows them as JSON Schema.
 *
 * @example
 * typedInputSchema.shape.num_questions.safeParse(0).success; // false
 */
export const typedInputSchema = z.object({
  asignatura: z
    .string({ error: 'must be a subject code such as "iv" or "DS", or null' })
    .min(1, { error: 'must be a subject code such as "iv" or "DS", or null' })
    .max(64, { error: "must be at most 64 characters" })
    .nullable(),
  topic: z.string({ error: "must be text or null" }).nullable(),
  num_questions: z
    .number({ error: "must be a whole number from 1 to 10, or null" })
    .int({ error: "must be a whole number from 1 to 10, or null" })
    .min(1, { error: "must be a whole number from 1 to 10, or null" })
    .max(10, { error: "must be a whole number from 1 to 10, or null" })
    .nullable(),
  difficulty: z.string({ error: "must be text or null" }).nullable(),
  query_difficulty: z.enum(["basic", "intermediate", "advanced"]).nullable(),
  current_question_index: z
    .number({ error: "must be a whole number, 0 or more" })
    .int({ error: "must be a whole number, 0 or more" })
    .min(0, { error: "must be a whole number, 0 or more" }),
});

const fields = typedInputSchema.shape;
const typed = {
  asignatura: channel.value<string | null>(null, { schema: fields.asignatura }),
  topic: channel.value<string | null>(null, { schema: fields.topic }),
  num_questions: channel.value<number | null>(null, { schema: fields.num_questions }),
  difficulty: channel.value<string | null>(null, { schema: fields.difficulty }),
  current_question_index: channel.value<number>(0, { schema: fields.current_question_index }),
};

/**
 * The seed's `SubjectState(MessagesState)`: the conversation plus subject, RAG context, chain-of-thought,
 * difficulty and the test-session fields it shares with the test subgraph. Key names follow the seed.
 *
 * @example
 * const graph = new StateGraph(subjectStateSchema);
 */
export const subjectStateSchema = {
  messages: channel.messages<Message>(),
  asignatura: typed.asignatura,
  context: list<ContextChunk>(),
  thinking: channel.value<string | null>(null),
  query_difficulty: channel.value<DifficultyLevel | null>(null, { schema: fields.query_difficulty }),
  topic: typed.topic,
  num_questions: typed.num_questions,
  difficulty: typed.difficulty,
  questions: list<MultipleChoiceTest>(),
  current_question_index: typed.current_question_index,
  user_answers: list<string>(),
  feedback_history: list<string>(),
  scores: list<boolean>(),
  pending_feedback: channel.value<string | null>(null),
};

/**
 * The state of the main graph.
 *
 * @example
 * const last = (state: SubjectState) => state.messages.at(-1);
 */
export type SubjectState = StateOf<typeof subjectStateSchema>;

/**
 * The seed's `TestSessionState`: the keys the test subgraph shares with the parent, plus the search
 * queries it generates for its proactive RAG step.
 *
 * @example
 * const subgraph = new StateGraph(testSessionStateSchema);
 */
export const testSessionStateSchema = {
  messages: channel.messages<Message>(),
  asignatura: typed.asignatura,
  topic: typed.topic,
  num_questions: typed.num_questions,
  difficulty: typed.difficulty,
  questions: list<MultipleChoiceTest>(),
  current_question_index: typed.current_question_index,
  user_answers: list<string>(),
  feedback_history: list<string>(),
  scores: list<boolean>(),
  pending_feedback: channel.value<string | null>(null),
  queries: list<string>(),
  context: list<ContextChunk>(),
  /** What the notes cover of the topic, when less than asked (or nothing): said to the student. */
  coverage_note: channel.value<string | null>(null),
};

/**
 * The state of the test-session subgraph.
 *
 * @example
 * const progress = (s: TestSessionState) => `${s.current_question_index}/${s.num_questions}`;
 */
export type TestSessionState = StateOf<typeof testSessionStateSchema>;
