import MiniSearch from "minisearch";
import { COURSE_PASSAGES, type CoursePassage } from "../corpus/course-corpus.js";
import type { Retriever, SearchRequest, SearchResponse } from "./retriever.js";
import { isStopword, stem, tokenize } from "./spanish-text.js";

/**
 * The embedded retriever: a BM25+ full-text index (MiniSearch) over the course corpus shipped with the
 * app, with Spanish accent folding, stop words and light stemming. Results are filtered by subject.
 *
 * @example
 * const retriever = new LocalRetriever();
 * const { results } = await retriever.search({ query: "¿Qué es un volumen?", asignatura: "iv", topK: 3 });
 * results[0]?.metadata.concepto; // "volumen"
 */
/** Share of a question's terms a passage must match to be returned (all of them for one or two terms). */
export const MIN_TERM_SHARE = 0.5;

export class LocalRetriever implements Retriever {
  readonly kind = "local";
  readonly #index: MiniSearch<CoursePassage>;
  readonly #passages: readonly CoursePassage[];

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
    const hits = this.#index.search(request.query, {
      filter: (hit) => code === undefined || byId.get(String(hit.id))?.asignatura.toLowerCase() === code,
    });
    // The relevance cut-off: a passage must match at least half of the question's terms (all of them for
    // one or two), so a question the notes do not cover finds nothing instead of a passage sharing a word.
    const terms = new Set(
      tokenize(request.query)
        .filter((t) => !isStopword(t))
        .map(stem),
    );
    const needed = terms.size <= 2 ? terms.size : Math.ceil(terms.size * MIN_TERM_SHARE);
    const relevant = hits.filter((hit) => new Set(hit.queryTerms).size >= needed);
    const results = relevant.slice(0, Math.max(0, request.topK)).flatMap((hit) => {
      const p = byId.get(String(hit.id));
      return p ? [{ content: p.texto, metadata: passageMetadata(p), score: round(hit.score) }] : [];
    });
    return { results };
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
