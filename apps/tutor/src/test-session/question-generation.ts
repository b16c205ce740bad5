import { type CoursePassage, subjectName } from "../corpus/course-corpus.js";
import { courseSynonyms } from "../retrieval/course-synonyms.js";
import { foldAccents, isStopword, searchTerms, sentences, stem, tokenize } from "../retrieval/spanish-text.js";
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
 * How closely a passage is about `topic`: 1 when the topic names its concept (every word of the topic,
 * or one of the course's synonyms for it, is in the concept — or the concept's words are all in the
 * topic), 2 when the topic names its unit ("patrones de diseño", "tema 2"), 3 when its text says the
 * topic's words in a row, 0 when it is not about it. A general topic ({@link isGeneralTopic}) covers
 * every passage at 1.
 *
 * @example
 * topicTier({ concepto: "idempotencia", tema: "Tema 4. Infraestructura como código", texto: "…" }, "infraestructura como código"); // 2
 * topicTier({ concepto: "infraestructura virtual", tema: "Tema 1. …", texto: "…" }, "infraestructura como código"); // 0
 */
export function topicTier(
  passage: { concepto?: unknown; tema?: unknown; texto: string },
  topic: string,
  asignatura?: string | null,
): 0 | 1 | 2 | 3 {
  if (isGeneralTopic(topic, asignatura)) return 1;
  const groups = topicGroups(topic);
  if (groups.length === 0) return 0;
  const termsOf = (text: unknown) => new Set(typeof text === "string" ? searchTerms(text) : []);
  const covers = (terms: ReadonlySet<string>, prefix = false) =>
    groups.every((alts) =>
      alts.some((a) =>
        a.every((t) => terms.has(t) || (prefix && t.length >= 4 && [...terms].some((c) => c.startsWith(t)))),
      ),
    );
  const concept = termsOf(passage.concepto);
  const topicTerms = new Set(groups.flat(2));
  // The concept: named by the topic ("docker" names "Dockerfile" and "Docker Compose"), or naming it.
  if (covers(concept, true) || (concept.size > 0 && [...concept].every((t) => topicTerms.has(t)))) return 1;
  if (covers(termsOf(passage.tema))) return 2;
  const words = searchTerms(passage.texto).join(" ");
  const phrases = groups.reduce<string[]>(
    (acc, alts) => acc.flatMap((p) => alts.map((a) => `${p} ${a.join(" ")}`.trim())),
    [""],
  );
  return phrases.some((p) => ` ${words} `.includes(` ${p} `)) ? 3 : 0;
}

/**
 * Whether a passage is about `topic` at all ({@link topicTier} above 0).
 *
 * @example
 * aboutTopic({ concepto: "patrón Observador", tema: "Tema 3. Patrones de diseño", texto: "…" }, "patrones de diseño"); // true
 */
export function aboutTopic(
  passage: { concepto?: unknown; tema?: unknown; texto: string },
  topic: string,
  asignatura?: string | null,
): boolean {
  return topicTier(passage, topic, asignatura) > 0;
}

/**
 * The passages about `topic`, closest first ({@link topicTier}; those that only mention it in their text
 * only when no passage is about it); for the whole course, every passage,
 * one unit after another in turn so a short quiz still spans the syllabus.
 *
 * @example
 * passagesOnTopic(retriever.passagesOf("iv"), "infraestructura como código", "iv").map((p) => p.concepto); // ["infraestructura como código", "idempotencia"]
 */
export function passagesOnTopic<P extends { concepto?: unknown; tema?: unknown; texto: string }>(
  passages: readonly P[],
  topic: string,
  asignatura?: string | null,
): P[] {
  if (isGeneralTopic(topic, asignatura)) return acrossUnits(passages);
  const tiered = passages.map((p, i) => ({ p, i, tier: topicTier(p, topic, asignatura) })).filter((x) => x.tier > 0);
  // A passage that only mentions the topic in passing counts only when none is about it.
  const about = tiered.some((x) => x.tier < 3) ? tiered.filter((x) => x.tier < 3) : tiered;
  return about.sort((a, b) => a.tier - b.tier || a.i - b.i).map((x) => x.p);
}

/** Passages taken one unit after another in turn (the first of each unit, then the second…). */
function acrossUnits<P extends { tema?: unknown }>(passages: readonly P[]): P[] {
  const units = new Map<string, P[]>();
  for (const p of passages) {
    const key = String(p.tema ?? "");
    units.set(key, [...(units.get(key) ?? []), p]);
  }
  const out: P[] = [];
  for (let round = 0; out.length < passages.length; round++) {
    for (const list of units.values()) {
      const p = list[round];
      if (p) out.push(p);
    }
  }
  return out;
}

/** The topic's words, each with its alternatives: its own stem, or all the words of a course synonym. */
function topicGroups(topic: string): string[][][] {
  return tokenize(topic)
    .filter((t) => !isStopword(t))
    .map((t) => {
      const synonym = searchTerms(courseSynonyms(t));
      return synonym.length > 0 ? [[stem(t)], synonym] : [[stem(t)]];
    });
}

const GENERAL_WORDS = new Set([
  "asignatur",
  "curs",
  "temari",
  "general",
  "tod",
  "materi",
  "complet",
  "enter",
  "apunt",
  "tem",
]);

/**
 * Whether a test topic means the whole subject: "toda la asignatura", "el temario", nothing, or the
 * subject's own name or code.
 *
 * @example
 * isGeneralTopic("toda la asignatura"); // true
 * isGeneralTopic("Infraestructura Virtual", "iv"); // true
 */
export function isGeneralTopic(topic: string, asignatura?: string | null): boolean {
  const terms = searchTerms(topic);
  if (terms.length === 0 || terms.every((t) => GENERAL_WORDS.has(t))) return true;
  if (!asignatura) return false;
  const subject = new Set([...searchTerms(subjectName(asignatura)), foldAccents(asignatura)]);
  return terms.every((t) => GENERAL_WORDS.has(t) || subject.has(t));
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
