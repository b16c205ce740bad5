import type { ApiClient } from "./api-client.js";
import type { SseEvent } from "./api-types.js";
import { emptyLog, type RunLog, reduceEvent } from "./run-log.js";

/**
 * The runs the studio is watching, one per thread, kept outside the components so a stream goes on
 * while the person looks elsewhere. Components subscribe and re-render on every event.
 *
 * @example
 * live.start(threadId, { assistant_id: "approval-flow", input: { request: "x" } });
 * const unsubscribe = live.subscribe(() => setLog(live.get(threadId)));
 */
export class LiveRuns {
  readonly #api: ApiClient;
  readonly #logs = new Map<string, RunLog>();
  readonly #listeners = new Set<(threadId: string) => void>();
  readonly #streaming = new Set<string>();

  constructor(api: ApiClient) {
    this.#api = api;
  }

  /** The log of the thread's latest watched run. */
  get(threadId: string): RunLog | undefined {
    return this.#logs.get(threadId);
  }

  /** True while the studio reads the thread's stream. */
  isStreaming(threadId: string): boolean {
    return this.#streaming.has(threadId);
  }

  /** Calls `listener` with the thread id after every change. */
  subscribe(listener: (threadId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts a run on the thread and watches it; resolves when it ends. */
  start(threadId: string, body: Record<string, unknown>): Promise<RunLog> {
    return this.#watch(threadId, this.#api.streamRun(threadId, body));
  }

  /** Watches a run that is already going. */
  join(threadId: string, runId: string): Promise<RunLog> {
    if (this.#streaming.has(threadId)) return Promise.resolve(this.#logs.get(threadId) ?? emptyLog());
    return this.#watch(threadId, this.#api.joinRun(threadId, runId));
  }

  async #watch(threadId: string, events: AsyncGenerator<SseEvent>): Promise<RunLog> {
    let log = emptyLog();
    const set = (next: RunLog) => {
      log = next;
      this.#logs.set(threadId, log);
      for (const l of this.#listeners) l(threadId);
    };
    this.#streaming.add(threadId);
    set(log);
    try {
      for await (const e of events) set(reduceEvent(log, e));
      if (log.status === "running") set({ ...log, status: "ended", active: [] });
    } catch (error) {
      set({
        ...log,
        status: "error",
        active: [],
        entries: [...log.entries, { kind: "error", text: (error as Error).message }],
      });
    } finally {
      this.#streaming.delete(threadId);
      for (const l of this.#listeners) l(threadId);
    }
    return log;
  }
}
