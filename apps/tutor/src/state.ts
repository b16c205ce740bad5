import { channel, type StateOf } from "@trellis/core";
import type { Message } from "@trellis/models";

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
 * The seed's `SubjectState(MessagesState)`: the conversation plus subject, RAG context, chain-of-thought,
 * difficulty and the test-session fields it shares with the test subgraph. Key names follow the seed.
 *
 * @example
 * const graph = new StateGraph(subjectStateSchema);
 */
export const subjectStateSchema = {
  messages: channel.messages<Message>(),
  asignatura: channel.value<string | null>(null),
  context: list<ContextChunk>(),
  thinking: channel.value<string | null>(null),
  query_difficulty: channel.value<DifficultyLevel | null>(null),
  topic: channel.value<string | null>(null),
  num_questions: channel.value<number | null>(null),
  difficulty: channel.value<string | null>(null),
  questions: list<MultipleChoiceTest>(),
  current_question_index: channel.value<number>(0),
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
  asignatura: channel.value<string | null>(null),
  topic: channel.value<string | null>(null),
  num_questions: channel.value<number | null>(null),
  difficulty: channel.value<string | null>(null),
  questions: list<MultipleChoiceTest>(),
  current_question_index: channel.value<number>(0),
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
