import { type CompiledGraph, type NodeContext, START, StateGraph } from "@trellis/core";
import { type AssistantMessage, assistantMessage, type ChatModel, toolMessage, userMessage } from "@trellis/models";
import { askChoice, type ChoosePause } from "@trellis/protocol";
import {
  TEST_EVALUATION_PROMPT,
  TEST_QUERY_GENERATION_PROMPT,
  TEST_QUESTION_GENERATION_PROMPT,
} from "../agent/prompts.js";
import type { CoursePassage } from "../corpus/course-corpus.js";
import type { LocalRetriever } from "../retrieval/local-retriever.js";
import { passageMetadata } from "../retrieval/local-retriever.js";
import type { Retriever } from "../retrieval/retriever.js";
import { type ContextChunk, type TestSessionState, testSessionStateSchema } from "../state.js";
import {
  answerLetter,
  correctAnswerHint,
  type Evaluation,
  evaluateOffline,
  formatQuestion,
  parseEvaluationJson,
} from "./answer-evaluation.js";
import {
  isGeneralTopic,
  LETTERS,
  offlineQueries,
  offlineQuestions,
  parseQueriesJson,
  parseQuestionsJson,
  passagesOnTopic,
  quizSeed,
} from "./question-generation.js";
import { quizHitlRequest, readQuizReply } from "./quiz-hitl.js";
import { testSummary } from "./test-summary.js";

/**
 * What `answer_question` shows when it pauses: the seed's interrupt payload, declared as a choice
 * (`@trellis/protocol`'s `askChoice`: `kind`, `question`, lettered `options`) so every door — the
 * CLI, the studio, AG-UI — offers the four options without parsing the text. The pause also carries
 * LangChain's HITL request (`action_requests`/`review_configs`, see `quiz-hitl.ts`) so agent-chat-ui
 * and `useStream` pages can answer it; `/chat` and `/resume_chat` show only the seed's keys.
 *
 * @example
 * const info: InterruptInfo = { action: "answer_question", question_num: 1, total_questions: 5, question_text: "¿…?\nA) …", ...askChoice("¿…?", options) };
 */
export interface InterruptInfo extends ChoosePause {
  action: "answer_question";
  question_num: number;
  total_questions: number;
  question_text: string;
}

/**
 * Options of {@link createTestSubgraph}.
 *
 * @example
 * const options: TestSubgraphOptions = { llm: undefined, retriever: corpus, corpus };
 */
export interface TestSubgraphOptions {
  /** The model for queries, questions and grading; without one, the deterministic offline path runs. */
  llm: ChatModel | undefined;
  retriever: Retriever;
  /** The shipped corpus: fills in questions and distractors when retrieval gives too little. */
  corpus: LocalRetriever;
  temperature?: number;
}

const NUM_QUERIES = 3;
const TOP_K = 3;

/**
 * The seed's test-session subgraph: initialize_test → generate_queries → retrieve_context →
 * generate_questions → present_question → answer_question (pauses with `interrupt()`) → test_router
 * → present_question again or finalize_test. Model calls are durable steps; with no model every step
 * has a deterministic offline implementation.
 *
 * @example
 * builder.addNode("test_session", createTestSubgraph({ llm: undefined, retriever, corpus }));
 */
export function createTestSubgraph(options: TestSubgraphOptions): CompiledGraph<typeof testSessionStateSchema> {
  const { llm } = options;
  const ask = (ctx: NodeContext, name: string, prompt: string) =>
    llm
      ? ctx.step(name, async (signal) => {
          const reply = await llm.invoke([userMessage(prompt)], {
            signal,
            ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          });
          return reply.content;
        })
      : Promise.resolve(undefined);

  return new StateGraph(testSessionStateSchema, { name: "test_session" })
    .addNode("initialize_test", initializeTest)
    .addNode("generate_queries", async (s, ctx) => {
      const topic = s.topic ?? "";
      const text = await ask(
        ctx,
        "llm",
        TEST_QUERY_GENERATION_PROMPT({ topic, numQueries: NUM_QUERIES, asignatura: s.asignatura }),
      );
      const queries = (text !== undefined ? parseQueriesJson(text) : undefined) ?? offlineQueries(topic, NUM_QUERIES);
      return { queries: queries.slice(0, NUM_QUERIES) };
    })
    .addNode("retrieve_context", async (s, ctx) => {
      const context = await ctx.step("search", async (signal) => {
        const all: ContextChunk[] = [];
        for (const query of s.queries) {
          try {
            const { results } = await options.retriever.search(
              { query, asignatura: s.asignatura, topK: TOP_K },
              signal,
            );
            for (const r of results) all.push({ content: r.content, metadata: r.metadata });
          } catch (error) {
            if (signal.aborted) throw error;
            // A failed or timed-out search leaves the shipped corpus to fill the test in.
          }
        }
        return dedupe(all);
      });
      return { context };
    })
    .addNode("generate_questions", async (s, ctx) => {
      const wanted = s.num_questions ?? 5;
      const topic = s.topic ?? "";
      const subject = options.corpus.passagesOf(s.asignatura);
      // Only what the notes say about the topic, closest first: a topic they do not cover is declined,
      // not replaced; the whole course takes every unit in turn.
      const general = isGeneralTopic(topic, s.asignatura);
      const onTopic = passagesOnTopic(subject, topic, s.asignatura);
      const asChunk = (p: CoursePassage): ContextChunk => ({ content: p.texto, metadata: passageMetadata(p) });
      // The retrieved chunks and the shipped passages on the topic, closest first.
      const context = general
        ? onTopic.slice(0, wanted * 2).map(asChunk)
        : passagesOnTopic(
            dedupe([...s.context, ...onTopic.map(asChunk)]).map((c) => ({ ...c.metadata, texto: c.content, chunk: c })),
            topic,
            s.asignatura,
          ).map((c) => c.chunk);
      if (context.length === 0 && onTopic.length === 0) {
        const temas = [...new Set(subject.map((p) => p.tema))];
        const covered = temas.length > 0 ? ` Puedo hacerte un test sobre: ${temas.join("; ")}.` : "";
        return {
          questions: [],
          num_questions: 0,
          context,
          coverage_note:
            `Los apuntes de la asignatura no tratan «${topic}», así que no te hago un test sobre ese tema: ` +
            `las preguntas saldrían de otra cosa.${covered}`,
        };
      }
      const prompt = TEST_QUESTION_GENERATION_PROMPT({
        topic,
        numQuestions: wanted,
        difficulty: s.difficulty ?? "intermediate",
        context: context.map((c, i) => `[${i + 1}] ${c.content}`).join("\n"),
      });
      const text = await ask(ctx, "llm", prompt);
      const generated = text !== undefined ? parseQuestionsJson(text) : undefined;
      const questions = (
        generated ??
        offlineQuestions({
          context,
          pool: onTopic,
          distractors: subject,
          count: wanted,
          difficulty: s.difficulty,
          seed: quizSeed(`${ctx.config.threadId ?? ""}|${topic}|${s.messages.length}`),
        })
      ).slice(0, wanted);
      const short =
        questions.length > 0 && questions.length < wanted
          ? `Los apuntes solo tratan ${questions.length} ${questions.length === 1 ? "concepto" : "conceptos"} de «${topic}», ` +
            `así que el test tiene ${questions.length} ${questions.length === 1 ? "pregunta" : "preguntas"} en lugar de ${wanted}.`
          : null;
      return { questions, num_questions: questions.length, context, coverage_note: short };
    })
    .addNode("present_question", (s) => {
      const q = s.questions[s.current_question_index];
      if (!q) return {};
      const header = `Pregunta ${s.current_question_index + 1}/${s.num_questions ?? s.questions.length}: ${formatQuestion(q)}`;
      const intro =
        s.current_question_index === 0
          ? `Empezamos el test sobre «${s.topic ?? "la asignatura"}»: ${plural(s.num_questions ?? s.questions.length, "pregunta", "preguntas")}.`
          : undefined;
      const text = [
        intro,
        intro ? s.coverage_note : null,
        s.pending_feedback,
        header,
        "Responde con la letra de la opción (A, B, C o D).",
      ]
        .filter((part): part is string => !!part)
        .join("\n\n");
      return { messages: [assistantMessage(text)], pending_feedback: null };
    })
    .addNode("answer_question", async (s, ctx) => {
      const idx = s.current_question_index;
      const q = s.questions[idx];
      if (!q) return {};
      const payload: InterruptInfo = {
        action: "answer_question",
        question_num: idx + 1,
        total_questions: s.num_questions ?? s.questions.length,
        question_text: formatQuestion(q),
        ...askChoice(
          q.question,
          q.options.map((label, i) => ({ key: LETTERS[i] ?? String(i + 1), label })),
        ),
      };
      const reply = readQuizReply(
        ctx.interrupt<unknown>({ ...payload, ...quizHitlRequest(q, idx + 1, payload.total_questions) }),
      );
      if (reply.kind === "invalid") {
        return { pending_feedback: `❌ ${reply.reason} Te repito la pregunta ${idx + 1}.` };
      }
      if (reply.kind === "stop") {
        // "Reject" without a message in a stock UI: the test ends here; the rest count as unanswered.
        return {
          messages: [userMessage("(terminar el test)")],
          pending_feedback: `⏹️ Test terminado en la pregunta ${idx + 1}.`,
          current_question_index: s.questions.length,
        };
      }
      if (reply.kind === "skip") {
        return {
          messages: [userMessage("(sin respuesta)")],
          user_answers: [...s.user_answers, "(sin respuesta)"],
          scores: [...s.scores, false],
          feedback_history: [...s.feedback_history, "sin respuesta"],
          pending_feedback: `⏭️ Sin respuesta. La respuesta correcta es la ${correctAnswerHint(q)}.`,
          current_question_index: idx + 1,
        };
      }
      const answer = reply.text;
      if (answerLetter(answer, q) === undefined) {
        // Not an option: the question is asked again, with the reason; it is not used up.
        const shown = answer.trim().length > 80 ? `${answer.trim().slice(0, 80)}…` : answer.trim();
        return {
          messages: [userMessage(answer)],
          pending_feedback:
            `❌ No he reconocido «${shown}» como una de las opciones A, B, C o D, así que no cuenta como ` +
            `respuesta. Te repito la pregunta ${idx + 1}.`,
        };
      }
      const evaluation = await evaluate(ctx, s, answer, ask);
      return {
        messages: [userMessage(answer)],
        user_answers: [...s.user_answers, answer],
        scores: [...s.scores, evaluation.isCorrect],
        feedback_history: [...s.feedback_history, evaluation.feedback],
        pending_feedback: evaluation.feedback,
        current_question_index: idx + 1,
      };
    })
    .addNode("finalize_test", (s) => ({ messages: [assistantMessage(testSummary(s))], pending_feedback: null }))
    .addEdge(START, "initialize_test")
    .addEdge("initialize_test", "generate_queries")
    .addEdge("generate_queries", "retrieve_context")
    .addEdge("retrieve_context", "generate_questions")
    .addEdge("generate_questions", "present_question")
    .addEdge("present_question", "answer_question")
    .addConditionalEdges("answer_question", testRouter, { continue: "present_question", finalize: "finalize_test" })
    .compile();
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The seed's `test_router`: another question, or the summary.
 *
 * @example
 * testRouter({ ...state, current_question_index: 5, questions: five }); // "finalize"
 */
export function testRouter(s: TestSessionState): "continue" | "finalize" {
  return s.current_question_index < s.questions.length ? "continue" : "finalize";
}

/** Reads the `generate_test` call, resets the session and answers the call (keeps the history valid). */
function initializeTest(s: TestSessionState) {
  const last = s.messages.at(-1);
  const call =
    last?.role === "assistant"
      ? (last as AssistantMessage).toolCalls?.find((c) => c.name === "generate_test")
      : undefined;
  const args = call?.args ?? {};
  const topic =
    typeof args.topic === "string" && args.topic.trim() !== "" ? args.topic.trim() : (s.topic ?? "la asignatura");
  const requested = Number(args.num_questions ?? 5);
  const numQuestions = Number.isFinite(requested) ? Math.min(Math.max(Math.round(requested), 1), 10) : 5;
  const difficulty = typeof args.difficulty === "string" ? args.difficulty : null;
  const note = `Test iniciado: ${numQuestions} preguntas sobre «${topic}».`;
  return {
    topic,
    num_questions: numQuestions,
    difficulty,
    questions: [],
    current_question_index: 0,
    user_answers: [],
    feedback_history: [],
    scores: [],
    pending_feedback: null,
    queries: [],
    context: [],
    coverage_note: null,
    messages: call ? [toolMessage(note, { toolCallId: call.id, name: "generate_test" })] : [],
  };
}

async function evaluate(
  ctx: NodeContext,
  s: TestSessionState,
  answer: string,
  ask: (ctx: NodeContext, name: string, prompt: string) => Promise<string | undefined>,
): Promise<Evaluation> {
  const q = s.questions[s.current_question_index];
  if (!q) return { isCorrect: false, feedback: "" };
  const prompt = TEST_EVALUATION_PROMPT({
    topic: s.topic ?? "",
    questionText: formatQuestion(q),
    userAnswer: answer,
    correctAnswerHint: correctAnswerHint(q),
    ragContext: s.context.map((c) => `- ${c.content}`).join("\n"),
  });
  const text = await ask(ctx, "evaluate", prompt);
  return (text !== undefined ? parseEvaluationJson(text) : undefined) ?? evaluateOffline(q, answer);
}

function dedupe(chunks: readonly ContextChunk[]): ContextChunk[] {
  const seen = new Set<string>();
  return chunks.filter((c) => {
    if (seen.has(c.content)) return false;
    seen.add(c.content);
    return true;
  });
}
