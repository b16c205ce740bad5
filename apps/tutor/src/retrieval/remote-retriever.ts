import { TrellisError } from "@trellis/checkpoint";
import { RagTimeoutError, type Retriever, type SearchRequest, type SearchResponse } from "./retriever.js";

/**
 * Options of {@link RemoteRetriever}.
 *
 * @example
 * const options: RemoteRetrieverOptions = { url: "http://127.0.0.1:8001", timeoutMs: 5_000 };
 */
export interface RemoteRetrieverOptions {
  /** Root URL of the RAG service; `POST <url>/search` is called. */
  url: string;
  /** How long to wait for an answer. Default 30,000 ms. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * The seed's RAG service client: `POST <RAG_URL>/search` with `{ query, asignatura, top_k }`, answered
 * by `{ results: [{ content, metadata }] }`. No answer within `timeoutMs` is a {@link RagTimeoutError}.
 *
 * @example
 * const retriever = new RemoteRetriever({ url: process.env.RAG_URL ?? "", timeoutMs: 5_000 });
 * await retriever.search({ query: "Kubernetes", asignatura: "iv", topK: 5 });
 */
export class RemoteRetriever implements Retriever {
  readonly kind = "remote";
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: RemoteRetrieverOptions) {
    if (!/^https?:\/\//.test(options.url)) {
      throw new TrellisError("INVALID_CONFIG", `RAG_URL must be an http(s) URL, got "${options.url}".`);
    }
    this.#url = `${options.url.replace(/\/+$/, "")}/search`;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let response: Response;
    let body: unknown;
    try {
      response = await this.#fetch(this.#url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: request.query, asignatura: request.asignatura, top_k: request.topK }),
        signal: combined,
      });
      body = await response.json();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new RagTimeoutError(this.#url, this.#timeoutMs);
      throw new TrellisError("INTERNAL", `The RAG service at ${this.#url} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!response.ok) {
      throw new TrellisError("INTERNAL", `The RAG service at ${this.#url} answered HTTP ${response.status}.`);
    }
    return { results: parseResults(body, this.#url) };
  }
}

function parseResults(body: unknown, url: string): SearchResponse["results"] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) {
    throw new TrellisError("INTERNAL", `The RAG service at ${url} answered without a "results" list.`);
  }
  return results.flatMap((r) => {
    const item = r as { content?: unknown; metadata?: unknown; score?: unknown };
    if (typeof item?.content !== "string") return [];
    const metadata =
      typeof item.metadata === "object" && item.metadata !== null ? (item.metadata as Record<string, unknown>) : {};
    return [
      typeof item.score === "number"
        ? { content: item.content, metadata, score: item.score }
        : { content: item.content, metadata },
    ];
  });
}
