import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { MODEL_USAGE_CHANNEL } from "@trellis/core";
import type { RunStatus, RunStore } from "../stores/run-store.js";
import type { EventHub, RunListener } from "../streams/event-hub.js";
import { Counter, Gauge, Histogram, Registry } from "./prometheus-text.js";
import type { LogEntry } from "./worker-log.js";

/** Seconds: from a tenth of a second (a queue that keeps up) to an hour (a run near its time limit). */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** What the metrics read when scraped. */
export interface MetricsSources {
  store: Pick<RunStore, "runCounts">;
  /** Runs this process executes now. */
  activeRuns(): number;
}

/**
 * The server's Prometheus metrics (see docs/observability.md for each one). Run events come from the
 * run manager's log entries ({@link ServerMetrics.observe}), token counts from the model-usage
 * diagnostics channel, live followers from the event hub ({@link ServerMetrics.countFollowers}), and
 * the queue's depth from the run store when scraped.
 *
 * @example
 * const metrics = new ServerMetrics();
 * const text = await metrics.render({ store, activeRuns: () => manager.activeRunIds.length });
 */
export class ServerMetrics {
  readonly #registry = new Registry();
  readonly #runs = this.#registry.add(
    new Counter("trellis_runs_total", "Runs that ended, by final status (success, error, timeout, interrupted)."),
  );
  readonly #duration = this.#registry.add(
    new Histogram(
      "trellis_run_duration_seconds",
      "Time an attempt of a run took, claim to end, by final status.",
      SECONDS,
    ),
  );
  readonly #queueWait = this.#registry.add(
    new Histogram("trellis_run_queue_wait_seconds", "Time from a run's creation to the claim of its attempt.", SECONDS),
  );
  readonly #errors = this.#registry.add(
    new Counter("trellis_run_errors_total", "Runs that ended in error or timeout, by error code."),
  );
  readonly #fenced = this.#registry.add(
    new Counter(
      "trellis_run_attempts_lost_total",
      "Attempts that lost their run to another worker (lease lost, fenced) or were released back to the queue, by event.",
    ),
  );
  readonly #queueDepth = this.#registry.add(
    new Gauge("trellis_queue_depth", "Runs waiting in the queue (pending), across every worker sharing the store."),
  );
  readonly #running = this.#registry.add(
    new Gauge("trellis_runs_running", "Runs executing now, across every worker sharing the store."),
  );
  readonly #active = this.#registry.add(
    new Gauge("trellis_active_runs", "Runs this process executes now (its leases on threads)."),
  );
  readonly #followers = this.#registry.add(
    new Gauge("trellis_stream_subscribers", "Live followers of run events in this process: SSE streams, joins, waits."),
  );
  readonly #tokens = this.#registry.add(
    new Counter(
      "trellis_model_tokens_total",
      "Tokens used by model calls in this process, by model and type (input, output).",
    ),
  );
  readonly #calls = this.#registry.add(
    new Counter("trellis_model_calls_total", "Model calls made in this process, by model."),
  );
  #followerCount = 0;
  readonly #onUsage = (message: unknown) => {
    const m = message as {
      provider?: unknown;
      model?: unknown;
      usage?: { inputTokens?: unknown; outputTokens?: unknown };
    };
    const model = `${String(m.provider ?? "unknown")}:${String(m.model ?? "unknown")}`;
    this.#calls.inc({ model });
    const input = Number(m.usage?.inputTokens);
    const output = Number(m.usage?.outputTokens);
    if (input > 0) this.#tokens.inc({ model, type: "input" }, input);
    if (output > 0) this.#tokens.inc({ model, type: "output" }, output);
  };

  constructor() {
    subscribe(MODEL_USAGE_CHANNEL, this.#onUsage);
  }

  /** Stops counting model calls (the server closed). */
  close(): void {
    unsubscribe(MODEL_USAGE_CHANNEL, this.#onUsage);
  }

  /** Counts what a run manager's log entry tells: a claim, an end, a lost attempt. */
  observe(entry: LogEntry): void {
    if (entry.event === "claim" && typeof entry.queuedMs === "number") {
      this.#queueWait.observe(entry.queuedMs / 1000);
    } else if (entry.event === "finish" && typeof entry.status === "string") {
      const status = entry.status as RunStatus;
      this.#runs.inc({ status });
      if (typeof entry.ms === "number") this.#duration.observe(entry.ms / 1000, { status });
      if (typeof entry.code === "string") this.#errors.inc({ code: entry.code });
    } else if (entry.event === "run-failed") {
      this.#errors.inc({ code: "INTERNAL" });
    } else if (entry.event === "fenced" || entry.event === "lease-lost" || entry.event === "release") {
      this.#fenced.inc({ event: entry.event });
    }
  }

  /** The hub, with each subscription counted as a live follower while it lasts. */
  countFollowers(hub: EventHub): EventHub {
    const counted: EventHub = {
      publish: (runId, event) => hub.publish(runId, event),
      end: (runId) => hub.end(runId),
      subscribe: (runId: string, listener: RunListener) => {
        const off = hub.subscribe(runId, listener);
        this.#followerCount++;
        let done = false;
        return () => {
          if (!done) {
            done = true;
            this.#followerCount--;
          }
          off();
        };
      },
    };
    if (hub.close) counted.close = () => hub.close?.() ?? Promise.resolve();
    return counted;
  }

  /** The exposition text, with the gauges read now. */
  async render(sources: MetricsSources): Promise<string> {
    const counts = (await sources.store.runCounts?.()) ?? undefined;
    this.#queueDepth.set(counts ? [{ value: counts.pending ?? 0 }] : []);
    this.#running.set(counts ? [{ value: counts.running ?? 0 }] : []);
    this.#active.set([{ value: sources.activeRuns() }]);
    this.#followers.set([{ value: this.#followerCount }]);
    return this.#registry.render();
  }
}
