import type { StoredEvent } from "../stores/run-store.js";

/**
 * Receives a run's live events, and `end` once the run stopped.
 *
 * @example
 * const listener: RunListener = { event: (e) => console.log(e.seq, e.event), end: () => console.log("run ended") };
 * const off = hub.subscribe(runId, listener);
 */
export interface RunListener {
  event(e: StoredEvent): void;
  end(): void;
}

/**
 * Live fan-out of run events to the streams that follow them. The embedded hub is in-process; a
 * scale-out hub carries the same calls over Redis so any API process streams any run.
 *
 * @example
 * const off = hub.subscribe(runId, { event: (e) => send(e), end: () => close() });
 */
export interface EventHub {
  publish(runId: string, event: StoredEvent): void;
  end(runId: string): void;
  subscribe(runId: string, listener: RunListener): () => void;
  close?(): Promise<void>;
}

/**
 * The in-process {@link EventHub}.
 *
 * @example
 * const hub = new LocalEventHub();
 * hub.publish("run-1", { seq: 1, event: "values", data: {} });
 */
export class LocalEventHub implements EventHub {
  readonly #listeners = new Map<string, Set<RunListener>>();

  publish(runId: string, event: StoredEvent): void {
    for (const l of this.#listeners.get(runId) ?? []) l.event(event);
  }

  end(runId: string): void {
    const set = this.#listeners.get(runId);
    this.#listeners.delete(runId);
    for (const l of set ?? []) l.end();
  }

  subscribe(runId: string, listener: RunListener): () => void {
    let set = this.#listeners.get(runId);
    if (!set) {
      set = new Set();
      this.#listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      const current = this.#listeners.get(runId);
      current?.delete(listener);
      if (current?.size === 0) this.#listeners.delete(runId);
    };
  }
}
