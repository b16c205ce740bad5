import {
  type AssistantMessage,
  type ChatRequest,
  type Message,
  messageText,
  RuleChatModel,
  type RuleChatModelOptions,
  type RuleContext,
  type RuleReply,
} from "@trellis/models";
import { foldAccents, isStopword, searchTerms, sentences, tokenize } from "../retrieval/spanish-text.js";
import type { DifficultyLevel } from "../state.js";
import { levelOfPrompt } from "./prompts.js";
import { readQuizRequest, WHOLE_COURSE_TOPIC } from "./quiz-request.js";
import { RAG_TIMEOUT_MESSAGE, RAG_UNAVAILABLE_MESSAGE } from "./tool-nodes.js";

const GUIDE_PATTERN =
  /gu[ií]a( docente)?|c[oó]mo se eval[uú]a (la asignatura|el curso|esta asignatura)|criterios de evaluaci[oó]n|evaluaci[oó]n de la asignatura|nota final|profesor(ado)?|qui[eé]n (imparte|da) |tutor[ií]as|horario|bibliograf[ií]a|libros? (recomendad|de texto|de consulta)|qu[eé] libros|lecturas recomendadas|temario|cr[eé]ditos|examen final/i;
const GREETING = /^\s*(hola|buenas( tardes| noches)?|buenos d[ií]as|hey|saludos)[\s!.,¡]*$/i;

const HELP =
  "Puedo responder preguntas sobre el temario a partir de los apuntes, consultar la guía docente (evaluación, profesorado, tutorías…) o hacerte un test, por ejemplo: «Hazme un test de 5 preguntas sobre contenedores».";

/**
 * The deterministic offline model of the tutor, on `RuleChatModel`: it routes a question to the right
 * tool (test requests to `generate_test`, guide questions to `get_guia`, anything else to
 * `rag_search`) and, once the tool has answered, writes the answer from the retrieved passages: the
 * sentences that best match the question, more of them for intermediate questions, and for advanced
 * ones `<thinking>…</thinking><answer>…</answer>` as the chain-of-thought prompt asks.
 *
 * @example
 * const model = createOfflineTutorModel();
 * const reply = await model.invoke([systemMessage(SYSTEM_PROMPT_BASIC("iv")), userMessage("¿Qué es un volumen?")], { tools });
 * reply.toolCalls?.[0]?.name; // "rag_search"
 */
export function createOfflineTutorModel(): RuleChatModel {
  return new BoundedRuleChatModel({
    model: "tutor-offline",
    rules: [
      { name: "rag-answer", when: (ctx) => lastToolIs(ctx, "rag_search"), reply: ragAnswer },
      { name: "guia-answer", when: (ctx) => lastToolIs(ctx, "get_guia"), reply: guiaAnswer },
      { name: "tool-error", when: (ctx) => ctx.last?.role === "tool", reply: (ctx) => toolErrorAnswer(ctx) },
      { name: "greeting", when: GREETING, reply: `¡Hola! Soy el asistente de la asignatura. ${HELP}` },
      {
        name: "test",
        when: (ctx) => ctx.last?.role === "user" && readQuizRequest(messageText(ctx.last)) !== undefined,
        reply: testCall,
      },
      {
        name: "guia",
        when: GUIDE_PATTERN,
        reply: (ctx) => ({ toolCalls: [{ name: "get_guia", args: guiaArgs(ctx.text) }] }),
      },
      {
        name: "search",
        when: /\S/,
        reply: (ctx) => ({ toolCalls: [{ name: "rag_search", args: { query: ctx.text.trim(), top_k: 3 } }] }),
      },
    ],
    fallback: `No tengo más información sobre eso. ${HELP}`,
  });
}

/** Calls `RuleChatModel` keeps in `calls`; a long-running server must not keep every conversation. */
const KEPT_CALLS = 20;

/** A `RuleChatModel` whose `calls` record keeps only the latest {@link KEPT_CALLS} calls. */
class BoundedRuleChatModel extends RuleChatModel {
  constructor(options: RuleChatModelOptions) {
    super(options);
  }

  protected override async generate(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    const reply = await super.generate(messages, request);
    if (this.calls.length > KEPT_CALLS) this.calls.splice(0, this.calls.length - KEPT_CALLS);
    return reply;
  }
}

function lastToolIs(ctx: RuleContext, name: string): boolean {
  return ctx.last?.role === "tool" && ctx.toolResults.some((m) => m.name === name);
}

function systemPrompt(ctx: RuleContext): string | undefined {
  const first = ctx.messages[0];
  return first?.role === "system" ? first.content : undefined;
}

function guiaArgs(text: string): { seccion?: string } {
  const folded = foldAccents(text);
  const seccion = /evalua|nota|examen/.test(folded)
    ? "evaluacion"
    : /profesor|imparte|quien da/.test(folded)
      ? "profesorado"
      : /tutori|horario/.test(folded)
        ? "tutorias"
        : /bibliograf|libro/.test(folded)
          ? "bibliografia"
          : /temario|tema/.test(folded)
            ? "temario"
            : undefined;
  return seccion ? { seccion } : {};
}

function testCall(ctx: RuleContext): RuleReply {
  const request = readQuizRequest(messageText(ctx.last));
  const count = request?.numQuestions ?? 5;
  // No topic said, or the whole course said: the whole subject.
  const topic = request?.topic ?? WHOLE_COURSE_TOPIC;
  return { toolCalls: [{ name: "generate_test", args: { topic, num_questions: Math.min(Math.max(count, 1), 10) } }] };
}

/** The chunks of a `rag_search` tool message in the seed's format. */
function chunksOf(content: string): string[] {
  const body = content.replace(/^This is chunks of context:\n/, "");
  return body
    .split(/\n- /)
    .map((c) => c.replace(/^-\s/, "").trim())
    .filter((c) => c.length > 0);
}

function ragAnswer(ctx: RuleContext): RuleReply {
  const content = ctx.toolResults.map((m) => m.content).join("\n");
  if (content.includes(RAG_TIMEOUT_MESSAGE)) {
    return "Lo siento: el servicio de búsqueda en los apuntes no ha respondido a tiempo (RAG service timeout). Vuelve a intentarlo en unos minutos.";
  }
  const chunks = ctx.toolResults.flatMap((m) => (m.status === "error" ? [] : chunksOf(m.content)));
  if (chunks.length === 0 && content.includes(RAG_UNAVAILABLE_MESSAGE)) {
    return "Lo siento: el servicio de búsqueda en los apuntes no está disponible ahora mismo, así que no he podido consultarlos (no es que los apuntes no traten el tema). Vuelve a intentarlo en unos minutos.";
  }
  if (chunks.length === 0) {
    return "No he encontrado información sobre eso en los apuntes de la asignatura. ¿Puedes reformular la pregunta o indicar el tema?";
  }
  const question = messageText(ctx.lastUser);
  const level: DifficultyLevel = levelOfPrompt(systemPrompt(ctx)) ?? "intermediate";
  if (level === "advanced") return advancedAnswer(question, chunks);
  const picked =
    level === "basic"
      ? bestSentences(question, chunks[0] ?? "", 2)
      : [...bestSentences(question, chunks[0] ?? "", 2), ...bestSentences(question, chunks[1] ?? "", 1)];
  return `Según los apuntes de la asignatura: ${picked.join(" ")}`;
}

function advancedAnswer(question: string, chunks: string[]): string {
  const used = chunks.slice(0, 3);
  const terms = [...new Set(tokenize(question).filter((t) => !isStopword(t) && t.length > 2))];
  const notes = used.map((c, i) => `Fragmento ${i + 1}: ${sentences(c)[0] ?? c}`);
  const thinking = [
    `La pregunta pide relacionar ideas (términos clave: ${terms.join(", ") || "ninguno"}).`,
    `He recuperado ${chunks.length} fragmentos de los apuntes; uso los ${used.length} más relevantes.`,
    ...notes,
    "Combino lo que dice cada fragmento sobre la pregunta y lo contrasto antes de responder.",
  ].join("\n");
  const points = used.flatMap((c, i) => bestSentences(question, c, i === 0 ? 2 : 1, true));
  const answer = `Según los apuntes de la asignatura:\n${points.map((p) => `- ${p}`).join("\n")}`;
  return `<thinking>\n${thinking}\n</thinking>\n<answer>\n${answer}\n</answer>`;
}

/**
 * The `count` sentences of `passage` sharing most terms with `question`, in passage order; with
 * `relevantOnly`, none that shares no term (unless that leaves nothing).
 */
function bestSentences(question: string, passage: string, count: number, relevantOnly = false): string[] {
  const terms = new Set(searchTerms(question));
  const scored = sentences(passage).map((s, i) => ({
    s,
    i,
    score: searchTerms(s).filter((t) => terms.has(t)).length - i * 0.01,
  }));
  const relevant = relevantOnly && scored.some((x) => x.score > 0) ? scored.filter((x) => x.score > 0) : scored;
  return relevant
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s);
}

function guiaAnswer(ctx: RuleContext): RuleReply {
  const results = ctx.toolResults.filter((m) => m.name === "get_guia");
  const parts = results.map((m) => {
    try {
      const r = JSON.parse(m.content) as {
        found?: boolean;
        nombre?: string;
        titulo?: string;
        contenido?: string;
        mensaje?: string;
      };
      if (r.found) return `Según la guía docente de ${r.nombre} (${r.titulo}): ${r.contenido}`;
      return r.mensaje ?? "No he encontrado esa información en la guía docente.";
    } catch {
      return `No he podido leer la guía docente: ${m.content}`;
    }
  });
  return parts.join("\n\n");
}

function toolErrorAnswer(ctx: RuleContext): string {
  const text = ctx.toolResults.map((m) => m.content).join(" ");
  return `No he podido completar la consulta: ${text}`;
}
