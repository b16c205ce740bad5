import { TrellisError } from "@trellis/checkpoint";

/**
 * One retrieved chunk, as the seed's RAG service returns it and as it lands in the state's `context`.
 *
 * @example
 * const chunk: RetrievedChunk = { content: "Un contenedor es…", metadata: { id: "iv-04", asignatura: "iv" } };
 */
export interface RetrievedChunk {
  content: string;
  metadata: Record<string, unknown>;
  /** Relevance score of the retriever (higher is better), when it gives one. */
  score?: number;
}

/**
 * A search request: the wire body of `POST /search` is `{ query, asignatura, top_k }`.
 *
 * @example
 * const request: SearchRequest = { query: "¿qué es un volumen?", asignatura: "iv", topK: 3 };
 */
export interface SearchRequest {
  query: string;
  asignatura: string | null;
  topK: number;
}

/**
 * What a search returns: the wire body of a `POST /search` answer.
 *
 * @example
 * const response: SearchResponse = { results: [] };
 */
export interface SearchResponse {
  results: RetrievedChunk[];
}

/**
 * Anything that answers searches over the course documents: the embedded BM25 index or the remote
 * RAG service of the seed.
 *
 * @example
 * const { results } = await retriever.search({ query: "Scrum", asignatura: "DS", topK: 3 }, ctx.signal);
 */
export interface Retriever {
  /** `"local"` or `"remote"`, for logs and the health route. */
  readonly kind: string;
  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse>;
}

/**
 * The RAG service did not answer within its timeout. The `rag_search` node turns it into the tool
 * message `RAG service timeout`, as the seed does.
 *
 * @example
 * if (error instanceof RagTimeoutError) return toolMessage("RAG service timeout", { toolCallId });
 */
export class RagTimeoutError extends TrellisError {
  constructor(url: string, timeoutMs: number) {
    super(
      "NODE_TIMEOUT",
      `The RAG service at ${url} did not answer within ${timeoutMs} ms; check RAG_URL or raise RAG_TIMEOUT_MS.`,
      {
        details: { url, timeoutMs },
      },
    );
    this.name = "RagTimeoutError";
  }
}
