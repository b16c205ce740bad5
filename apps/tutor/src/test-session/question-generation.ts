import type { CoursePassage } from "../corpus/course-corpus.js";
import { foldAccents, searchTerms, sentences } from "../retrieval/spanish-text.js";
import type { ContextChunk, MultipleChoiceTest } from "../state.js";

/**
 * Option letters, in order.
 *
 * @example
 * LETTERS.indexOf("C"); // 2
 */
export const LETTERS = ["A", "B", "C", "D"] as const;

/**
 * Search queries for a test topic without a model: the topic itself, then its definition and its uses.
 *
 * @example
 * offlineQueries("contenedores", 3); // ["contenedores", "qué es contenedores", "contenedores ejemplos y uso"]
 */
export function offlineQueries(topic: string, count: number): string[] {
  return [topic, `qué es ${topic}`, `${topic} ejemplos y uso`].slice(0, Math.max(1, count));
}

/** A concept and its one-sentence definition: what an offline question is made of. */
interface Fact {
  concepto: string;
  definicion: string;
  explicacion: string;
  tema: string;
  source: string | undefined;
}

/**
 * Builds multiple-choice questions without a model from the retrieved chunks: each question asks
 * which statement describes a concept the chunks explain; the other options are the definitions of
 * other concepts of the subject (of the same unit first for advanced tests). When the chunks cover
 * fewer concepts than asked, `pool` (the subject's passages on the topic) fills in; `distractors`
 * (default `pool`) gives the wrong options. Where the right answer sits is drawn from `seed`: every
 * letter equally often, in an order that changes from quiz to quiz (the same seed, the same quiz).
 *
 * @example
 * const questions = offlineQuestions({ context, pool: onTopic, distractors: retriever.passagesOf("iv"), count: 5, difficulty: "intermediate", seed: 42 });
 * questions[0]; // { question: "¿Qué afirmación describe mejor «volumen»?", options: [...4], correct_answer: "C", … }
 */
export function offlineQuestions(args: {
  context: readonly ContextChunk[];
  pool: readonly CoursePassage[];
  distractors?: readonly CoursePassage[];
  count: number;
  difficulty: string | null;
  seed: number;
}): MultipleChoiceTest[] {
  const poolFacts = args.pool.map(passageFact);
  const facts = uniqueFacts([...args.context.map(chunkFact), ...poolFacts]);
  const chosen = facts.slice(0, args.count);
  const distractorPool = uniqueFacts([...facts, ...(args.distractors ?? args.pool).map(passageFact)]);
  if (distractorPool.length < LETTERS.length) return [];
  const random = seededRandom(args.seed);
  const positions = answerPositions(chosen.length, random);
  return chosen.map((fact, i) => {
    const others = distractorPool.filter((f) => f.concepto !== fact.concepto);
    const preferred =
      args.difficulty === "advanced"
        ? [...others.filter((f) => f.tema === fact.tema), ...others.filter((f) => f.tema !== fact.tema)]
        : others;
    const start = Math.floor(random() * Math.max(1, preferred.length));
    const rotated = [...preferred.slice(start), ...preferred.slice(0, start)];
    const distractors = shuffle(
      rotated.slice(0, LETTERS.length - 1).map((f) => f.definicion),
      random,
    );
    const correctIndex = positions[i] ?? 0;
    const options = [...distractors];
    options.splice(correctIndex, 0, fact.definicion);
    const question: MultipleChoiceTest = {
      question: `¿Qué afirmación describe mejor «${fact.concepto}»?`,
      options,
      correct_answer: LETTERS[correctIndex] as string,
      explanation: fact.explicacion,
    };
    if (fact.source) question.source = fact.source;
    return question;
  });
}

/**
 * A quiz's seed from what identifies it (the thread, the topic, where in the conversation it starts):
 * FNV-1a over the text.
 *
 * @example
 * quizSeed("ana|contenedores|4"); // a 32-bit number
 */
export function quizSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Where the right answers sit: each letter as often as the others (±1), shuffled. */
function answerPositions(count: number, random: () => number): number[] {
  const base = shuffle(
    LETTERS.map((_, i) => i),
    random,
  );
  const positions = Array.from({ length: count }, (_, i) => base[i % LETTERS.length] as number);
  return shuffle(positions, random);
}

/**
 * Whether a text is about `topic`: it names one of the topic's terms in its concept, or all of them in
 * its unit's title or its text. A topic with no terms (or "la asignatura") covers everything.
 *
 * @example
 * aboutTopic({ concepto: "patrón Observador", tema: "Tema 3. Patrones de diseño", texto: "…" }, "patrones de diseño"); // true
 */
export function aboutTopic(passage: { concepto?: unknown; tema?: unknown; texto: string }, topic: string): boolean {
  const terms = [...new Set(searchTerms(topic))];
  if (isGeneralTopic(topic)) return true;
  const has = (text: unknown) => new Set(typeof text === "string" ? searchTerms(text) : []);
  const concept = has(passage.concepto);
  if (terms.some((t) => concept.has(t))) return true;
  const tema = has(passage.tema);
  const texto = has(passage.texto);
  return terms.every((t) => tema.has(t)) || terms.every((t) => texto.has(t));
}

/**
 * Whether a test topic means the whole subject ("la asignatura", "el temario", nothing).
 *
 * @example
 * isGeneralTopic("la asignatura"); // true
 */
export function isGeneralTopic(topic: string): boolean {
  const terms = searchTerms(topic);
  return terms.length === 0 || terms.every((t) => /^(asignatur|curs|temari|general|todo|materi)$/.test(t));
}

function passageFact(p: CoursePassage): Fact {
  return {
    concepto: p.concepto,
    definicion: p.definicion,
    explicacion: sentences(p.texto)[0] ?? p.texto,
    tema: p.tema,
    source: p.id,
  };
}

function chunkFact(c: ContextChunk): Fact {
  const m = c.metadata;
  const first = sentences(c.content)[0] ?? c.content;
  const concepto = typeof m.concepto === "string" ? m.concepto : first.split(/\s+/).slice(0, 5).join(" ");
  return {
    concepto,
    definicion: typeof m.definicion === "string" ? m.definicion : first,
    explicacion: first,
    tema: typeof m.tema === "string" ? m.tema : "",
    source: typeof m.source === "string" ? m.source : undefined,
  };
}

function uniqueFacts(facts: readonly Fact[]): Fact[] {
  const seen = new Set<string>();
  return facts.filter((f) => {
    const key = foldAccents(f.concepto);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Reads a JSON list of strings out of a model reply (tolerating a Markdown code fence or text around
 * it); undefined when there is none.
 *
 * @example
 * parseQueriesJson('```json\n["a", "b"]\n```'); // ["a", "b"]
 */
export function parseQueriesJson(text: string): string[] | undefined {
  const value = extractJson(text, "[", "]");
  if (!Array.isArray(value)) return undefined;
  const queries = value.filter((q): q is string => typeof q === "string" && q.trim() !== "").map((q) => q.trim());
  return queries.length > 0 ? queries : undefined;
}

/**
 * Reads the questions a model generated: a JSON list of `{ question, options[4], correct_answer,
 * explanation }`. Malformed entries are dropped; `correct_answer` may be a letter or the option text.
 *
 * @example
 * parseQuestionsJson('[{"question":"¿…?","options":["a","b","c","d"],"correct_answer":"c","explanation":"…"}]')?.[0]?.correct_answer; // "C"
 */
export function parseQuestionsJson(text: string): MultipleChoiceTest[] | undefined {
  const value = extractJson(text, "[", "]");
  if (!Array.isArray(value)) return undefined;
  const questions = value.flatMap((raw): MultipleChoiceTest[] => {
    const q = raw as Record<string, unknown>;
    if (typeof q?.question !== "string" || !Array.isArray(q.options) || q.options.length !== 4) return [];
    const options = q.options.map((o) => String(o).replace(/^\s*[A-Da-d][).:]\s+/, ""));
    const answer = String(q.correct_answer ?? "").trim();
    const letter = /^[A-Da-d]\b/.test(answer)
      ? answer[0]?.toUpperCase()
      : LETTERS[options.findIndex((o) => foldAccents(o) === foldAccents(answer))];
    if (!letter) return [];
    return [{ question: q.question, options, correct_answer: letter, explanation: String(q.explanation ?? "") }];
  });
  return questions.length > 0 ? questions : undefined;
}

/**
 * The first JSON value between `open` and the last `close` of a text, or undefined.
 *
 * @example
 * extractJson('Aquí tienes: {"a": 1}', "{", "}"); // { a: 1 }
 */
export function extractJson(text: string, open: "[" | "{", close: "]" | "}"): unknown {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}
