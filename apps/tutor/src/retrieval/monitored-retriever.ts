import type { Retriever, SearchRequest, SearchResponse } from "./retriever.js";

/**
 * What `/health` says about retrieval: how many searches ran and failed, and the latest failure.
 *
 * @example
 * const r: RetrievalHealth = { kind: "remote", searches: 3, failures: 1, last_error: "…", last_error_at: "…", last_failed: true };
 */
export interface RetrievalHealth {
  kind: string;
  searches: number;
  failures: number;
  /** Whether the latest search failed: the service is down now, as far as the tutor knows. */
  last_failed: boolean;
  last_error: string | null;
  last_error_at: string | null;
}

/**
 * A {@link Retriever} that counts its searches and failures and logs every failure, so an operator can
 * tell an outage of the RAG service from a gap in the notes (`GET /health`, the log). A search the
 * caller cancelled is not a failure.
 *
 * @example
 * const retriever = new MonitoredRetriever(new RemoteRetriever({ url }), (line) => console.error(line));
 */
export class MonitoredRetriever implements Retriever {
  readonly kind: string;
  readonly #inner: Retriever;
  readonly #log: (line: string) => void;
  #searches = 0;
  #failures = 0;
  #lastFailed = false;
  #lastError: string | null = null;
  #lastErrorAt: string | null = null;

  constructor(inner: Retriever, log: (line: string) => void = (line) => console.error(line)) {
    this.#inner = inner;
    this.kind = inner.kind;
    this.#log = log;
  }

  async search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    this.#searches++;
    try {
      const response = await this.#inner.search(request, signal);
      this.#lastFailed = false;
      return response;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#failures++;
      this.#lastFailed = true;
      this.#lastError = error instanceof Error ? error.message : String(error);
      this.#lastErrorAt = new Date().toISOString();
      this.#log(`[tutor] retrieval failed (${this.kind}) for "${request.query.slice(0, 100)}": ${this.#lastError}`);
      throw error;
    }
  }

  /** The counts and the latest failure, for `/health`. */
  health(): RetrievalHealth {
    return {
      kind: this.kind,
      searches: this.#searches,
      failures: this.#failures,
      last_failed: this.#lastFailed,
      last_error: this.#lastError,
      last_error_at: this.#lastErrorAt,
    };
  }
}

const MONITORS = new WeakMap<object, MonitoredRetriever>();
let latest: MonitoredRetriever | undefined;

/**
 * Remembers which monitored retriever a graph searches with, so the routes serving the graph (built
 * apart from it inside the Trellis server) can report on it.
 *
 * @example
 * registerRetrieval(graph, deps.retriever);
 */
export function registerRetrieval(graph: object, retriever: unknown): void {
  if (!(retriever instanceof MonitoredRetriever)) return;
  MONITORS.set(graph, retriever);
  latest = retriever;
}

/**
 * The monitored retriever a graph searches with. The Trellis server hands the routes a copy of the
 * graph (`withCheckpointer`), built right before them: for a graph not registered, the one registered
 * last is returned.
 *
 * @example
 * retrievalOf(agent.graph)?.health().failures;
 */
export function retrievalOf(graph: object): MonitoredRetriever | undefined {
  return MONITORS.get(graph) ?? latest;
}
