import MiniSearch from "minisearch";
import { COURSE_PASSAGES, type CoursePassage } from "../corpus/course-corpus.js";
import { courseSynonyms } from "./course-synonyms.js";
import type { Retriever, SearchRequest, SearchResponse } from "./retriever.js";
import { isStopword, searchTerms, stem, tokenize } from "./spanish-text.js";

/**
 * The embedded retriever: a BM25+ full-text index (MiniSearch) over the course corpus shipped with the
 * app, with Spanish accent folding, stop words and light stemming. Results are filtered by subject.
 *
 * @example
 * const retriever = new LocalRetriever();
 * const { results } = await retriever.search({ query: "¿Qué es un volumen?", asignatura: "iv", topK: 3 });
 * results[0]?.metadata.concepto; // "volumen"
 */
/**
 * A passage must match more than this share of a question's words to be returned (unless the question
 * names its concept); a word matches through its stem or one of the course's synonyms for it.
 */
export const MIN_TERM_SHARE = 0.5;

/** How much a passage's score grows when the question names its whole concept. */
const CONCEPT_BONUS = 3;

export class LocalRetriever implements Retriever {
  readonly kind = "local";
  readonly #index: MiniSearch<CoursePassage>;
  readonly #passages: readonly CoursePassage[];
  readonly #vocabulary: ReadonlySet<string>;
  readonly #conceptTerms: ReadonlyMap<string, readonly string[]>;

  constructor(passages: readonly CoursePassage[] = COURSE_PASSAGES) {
    this.#passages = passages;
    this.#index = new MiniSearch<CoursePassage>({
      idField: "id",
      fields: ["concepto", "tema", "texto"],
      storeFields: ["id"],
      tokenize: (text) => tokenize(text),
      processTerm: (term) => (isStopword(term) ? null : stem(term)),
      searchOptions: { boost: { concepto: 3, tema: 0.5 }, prefix: (term) => term.length >= 5, fuzzy: 0.15 },
    });
    this.#index.addAll([...passages]);
    this.#vocabulary = new Set(passages.flatMap((p) => searchTerms(`${p.concepto} ${p.tema} ${p.texto}`)));
    this.#conceptTerms = new Map(passages.map((p) => [p.id, [...new Set(searchTerms(p.concepto))]]));
  }

  /** The passages of one subject (case-insensitive code), in corpus order. */
  passagesOf(asignatura: string | null): CoursePassage[] {
    const code = asignatura?.toLowerCase();
    return this.#passages.filter((p) => code === undefined || p.asignatura.toLowerCase() === code);
  }

  async search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    signal?.throwIfAborted();
    const code = request.asignatura?.toLowerCase();
    const byId = new Map(this.#passages.map((p) => [p.id, p]));
    // Each word of the question is a group: its stem and the stems of the course's synonyms for it.
    const groups = tokenize(request.query)
      .filter((t) => !isStopword(t))
      .map((t) => new Set([stem(t), ...searchTerms(courseSynonyms(t))]));
    const known = groups.filter((g) => [...g].some((term) => this.#known(term)));
    if (known.length === 0) return { results: [] };
    const query = [...new Set(known.flatMap((g) => [...g]))].join(" ");
    const hits = this.#index.search(query, {
      filter: (hit) => code === undefined || byId.get(String(hit.id))?.asignatura.toLowerCase() === code,
    });
    // The relevance cut-off: a passage is returned when the question names its whole concept, or matches
    // more than half of the question's words (all of them for one or two), so a question the notes do not
    // cover finds nothing instead of a passage sharing a word.
    const needed = groups.length <= 2 ? groups.length : Math.floor(groups.length * MIN_TERM_SHARE) + 1;
    const asked = new Set(groups.flatMap((g) => [...g]));
    const ranked = hits
      .flatMap((hit) => {
        const matched = new Set(hit.queryTerms);
        const covered = groups.filter((g) => [...g].some((term) => matched.has(term))).length;
        const concept = this.#conceptTerms.get(String(hit.id)) ?? [];
        const named = concept.length > 0 && concept.every((term) => asked.has(term));
        if (!named && covered < needed) return [];
        return [{ id: String(hit.id), score: hit.score * (named ? CONCEPT_BONUS : 1) }];
      })
      .sort((a, b) => b.score - a.score);
    const results = ranked.slice(0, Math.max(0, request.topK)).flatMap((hit) => {
      const p = byId.get(hit.id);
      return p ? [{ content: p.texto, metadata: passageMetadata(p), score: round(hit.score) }] : [];
    });
    return { results };
  }

  /** Whether some passage uses `term` (or, for five letters or more, a word it begins). */
  #known(term: string): boolean {
    if (this.#vocabulary.has(term)) return true;
    if (term.length < 5) return false;
    for (const word of this.#vocabulary) if (word.startsWith(term)) return true;
    return false;
  }
}

/**
 * The metadata a passage carries in search results.
 *
 * @example
 * passageMetadata(IV_PASSAGES[0]).source; // "iv-01"
 */
export function passageMetadata(p: CoursePassage): Record<string, unknown> {
  return { source: p.id, asignatura: p.asignatura, tema: p.tema, concepto: p.concepto, definicion: p.definicion };
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
