import type { Assistant, GraphJson, Run, ServerInfo, SseEvent, Thread, ThreadState } from "./api-types.js";
import { SseParser } from "./sse-parser.js";

const KEY_STORAGE = "trellis.apiKey";

/**
 * An API failure in plain words: the server's `{ error, message }` when it sent one, else what went
 * wrong with the connection.
 *
 * @example
 * try { await api.thread("x"); } catch (e) { if (e instanceof ApiError && e.status === 404) … }
 */
export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** The stream modes the studio asks for. */
export const STREAM_MODES = ["values", "updates", "messages-tuple", "debug"];

/**
 * The studio's client of the server's Agent Server API, same origin. Sends the API key kept in
 * localStorage when auth is on.
 *
 * @example
 * const threads = await api.searchThreads({ limit: 20 });
 */
export class ApiClient {
  readonly #base: string;

  constructor(base = "") {
    this.#base = base;
  }

  /** The API key sent as `x-api-key`, if one was given. */
  get apiKey(): string | null {
    return localStorage.getItem(KEY_STORAGE);
  }

  set apiKey(key: string | null) {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  }

  #headers(json: boolean): Record<string, string> {
    const h: Record<string, string> = {};
    if (json) h["content-type"] = "application/json";
    const key = this.apiKey;
    if (key) h["x-api-key"] = key;
    return h;
  }

  async #fetch(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: this.#headers(body !== undefined),
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new ApiError(`Cannot reach the Trellis server (${(error as Error).message}). Is it running?`, 0, undefined);
    }
    if (!res.ok) {
      const text = await res.text();
      let code: string | undefined;
      let message = text || res.statusText;
      try {
        const j = JSON.parse(text) as { error?: string; message?: string };
        code = j.error;
        message = j.message ?? message;
      } catch {
        // not JSON
      }
      throw new ApiError(`${message}${code ? ` (${code})` : ""}`, res.status, code);
    }
    return res;
  }

  async #json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.#fetch(method, path, body);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  info(): Promise<ServerInfo> {
    return this.#json("GET", "/info");
  }
  assistants(): Promise<Assistant[]> {
    return this.#json("POST", "/assistants/search", { limit: 100 });
  }
  graph(assistantId: string): Promise<GraphJson> {
    return this.#json("GET", `/assistants/${encodeURIComponent(assistantId)}/graph`);
  }
  schemas(assistantId: string): Promise<{
    input_schema?: Record<string, unknown> & { properties?: Record<string, unknown> };
    state_schema?: { properties?: Record<string, unknown> };
  }> {
    return this.#json("GET", `/assistants/${encodeURIComponent(assistantId)}/schemas`);
  }
  createThread(graphId: string): Promise<Thread> {
    return this.#json("POST", "/threads", { metadata: { graph_id: graphId } });
  }
  searchThreads(body: Record<string, unknown>): Promise<Thread[]> {
    return this.#json("POST", "/threads/search", body);
  }
  thread(threadId: string): Promise<Thread> {
    return this.#json("GET", `/threads/${encodeURIComponent(threadId)}`);
  }
  state(threadId: string): Promise<ThreadState> {
    return this.#json("GET", `/threads/${encodeURIComponent(threadId)}/state`);
  }
  history(threadId: string, limit = 100): Promise<ThreadState[]> {
    return this.#json("POST", `/threads/${encodeURIComponent(threadId)}/history`, { limit });
  }
  /** `POST /threads/{id}/state`: a new checkpoint with `values` applied, from `checkpointId` when given (a fork). */
  updateState(
    threadId: string,
    values: Record<string, unknown>,
    checkpointId?: string,
  ): Promise<{ checkpoint: { checkpoint_id: string } }> {
    return this.#json("POST", `/threads/${encodeURIComponent(threadId)}/state`, {
      values,
      ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
    });
  }
  runs(threadId: string): Promise<Run[]> {
    return this.#json("GET", `/threads/${encodeURIComponent(threadId)}/runs?limit=20`);
  }
  cancel(threadId: string, runId: string): Promise<void> {
    return this.#json("POST", `/threads/${encodeURIComponent(threadId)}/runs/${runId}/cancel`);
  }

  /** Creates a run and yields its events as they arrive (`POST /threads/{id}/runs/stream`). */
  streamRun(threadId: string, body: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
    const request = { stream_mode: STREAM_MODES, multitask_strategy: "reject", ...body };
    return this.#events("POST", `/threads/${encodeURIComponent(threadId)}/runs/stream`, request, signal);
  }

  /** Follows a run that is already going (`GET …/runs/{run_id}/stream`). */
  joinRun(threadId: string, runId: string, signal?: AbortSignal): AsyncGenerator<SseEvent> {
    const modes = STREAM_MODES.map((m) => `stream_mode=${m}`).join("&");
    return this.#events(
      "GET",
      `/threads/${encodeURIComponent(threadId)}/runs/${runId}/stream?${modes}`,
      undefined,
      signal,
    );
  }

  async *#events(method: string, path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<SseEvent> {
    const res = await this.#fetch(method, path, body, signal);
    if (!res.body) return;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield* parser.push(value);
      }
    } finally {
      reader.releaseLock();
    }
  }
}
