import { randomUUID } from "node:crypto";
import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import type { EventHub } from "./event-hub.js";
import type { HostedGraph } from "./graph-registry.js";
import { executeRun, type RunStop } from "./run-executor.js";
import {
  type CancelAction,
  type MultitaskStrategy,
  type RunRecord,
  type RunStore,
  type StoredEvent,
  TERMINAL_RUN_STATUSES,
  type ThreadStatus,
} from "./run-store.js";
import { wantsEvent } from "./stream-format.js";

/** Options of {@link RunManager}. */
export interface RunManagerOptions {
  store: RunStore;
  hub: EventHub;
  saver: CheckpointSaver;
  graphs: ReadonlyMap<string, HostedGraph>;
  /** Runs executing at once in this process; 0 for an API process that leaves runs to workers. */
  concurrency: number;
  limits: { stateBytes: number; runTimeMs: number };
  /**
   * Several processes share the store (scale-out): every `heartbeatMs` this process reports its runs
   * (and applies stops other processes asked for), takes back runs whose worker fell silent for
   * `orphanAfterMs`, and looks for queued work.
   */
  shared?: { heartbeatMs: number; orphanAfterMs: number };
  /** Wakes idle workers when a run is queued (Redis Streams in scale-out). */
  wake?: QueueWake;
}

/** A channel that tells workers "the queue has something" — a hint, the store stays the truth. */
export interface QueueWake {
  notify(): Promise<void>;
  /** Calls `onWake` on every notification until the returned function is called. */
  listen(onWake: () => void): () => Promise<void>;
}

interface ActiveRun {
  controller: AbortController;
  drain: AbortController;
  stop: RunStop | undefined;
  done: Promise<void>;
}

/**
 * The queue and its workers: accepts runs (applying the multitask strategy), executes them with the
 * configured concurrency, persists and fans out their events, cancels them, and after a restart picks
 * up the runs that were in flight.
 *
 * @example
 * const manager = new RunManager({ store, hub, saver, graphs, concurrency: 4, limits });
 * await manager.start();
 * const run = await manager.submit(record, "enqueue");
 * for await (const e of manager.follow(run.runId, 0)) console.log(e.event, e.data);
 */
export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #active = new Map<string, ActiveRun>();
  #stopping = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #pumping = false;
  #pumpAgain = false;
  readonly workerId = `worker-${randomUUID()}`;

  constructor(options: RunManagerOptions) {
    this.#o = options;
  }

  /** Takes back runs a dead process left running, then starts working the queue. */
  async start(): Promise<void> {
    const shared = this.#o.shared;
    if (this.#o.concurrency > 0) await this.#o.store.requeueOrphans(shared?.orphanAfterMs);
    if (shared && this.#o.concurrency > 0) {
      this.#timer = setInterval(() => void this.#tick(shared.orphanAfterMs), shared.heartbeatMs);
      this.#timer.unref?.();
      this.#unlisten = this.#o.wake?.listen(() => this.pump());
    }
    this.pump();
  }

  async #tick(orphanAfterMs: number): Promise<void> {
    try {
      const stops = await this.#o.store.heartbeat(this.workerId, [...this.#active.keys()]);
      for (const { runId, cancel } of stops) this.#applyStop(runId, cancel);
      await this.#o.store.requeueOrphans(orphanAfterMs);
      this.pump();
    } catch (error) {
      console.error("[trellis-server] heartbeat:", error);
    }
  }

  #applyStop(runId: string, cancel: RunRecord["cancel"]): void {
    const active = this.#active.get(runId);
    if (!active || active.stop || !cancel) return;
    if (cancel === "drain") {
      active.stop = "drain";
      active.drain.abort("interrupted by a new run");
    } else {
      active.stop = cancel === "rollback" ? "rollback" : "cancel";
      active.controller.abort(`cancelled (${cancel})`);
    }
  }

  /** Runs executing in this process now. */
  get activeRunIds(): string[] {
    return [...this.#active.keys()];
  }

  /**
   * Queues a run, applying `strategy` when its thread already has one: `reject` fails with CONFLICT,
   * `enqueue` waits its turn, `interrupt` stops the running one at its next step boundary (keeping its
   * progress), `rollback` cancels it and undoes its progress.
   */
  async submit(run: RunRecord, strategy: MultitaskStrategy): Promise<RunRecord> {
    const { running, dropped } = await this.#o.store.enqueueRun(run, strategy);
    for (const d of dropped) this.#o.hub.end(d.runId);
    if (running && (strategy === "interrupt" || strategy === "rollback")) {
      // a run of this process stops now; one of another process at its worker's next heartbeat
      this.#applyStop(running.runId, strategy === "interrupt" ? "drain" : "rollback");
    }
    this.pump();
    await this.#o.wake?.notify().catch(() => undefined);
    return run;
  }

  /**
   * Cancels a run. A queued run never starts; a running one is aborted through `ctx.signal`.
   * `interrupt` keeps the progress it made, `rollback` undoes it. With `wait`, resolves once it stopped.
   */
  async cancel(run: RunRecord, action: CancelAction, wait: boolean): Promise<void> {
    if (TERMINAL_RUN_STATUSES.has(run.status)) return;
    const active = this.#active.get(run.runId);
    if (active) {
      active.stop = action === "rollback" ? "rollback" : "cancel";
      active.controller.abort(`cancelled (${action})`);
      if (wait) await active.done;
      return;
    }
    if (run.status === "pending") {
      await this.#o.store.updateRun(run.runId, { status: "interrupted", cancel: action });
      await this.#settleThread(run.threadId, undefined);
      this.#o.hub.end(run.runId);
      return;
    }
    await this.#o.store.updateRun(run.runId, { cancel: action }); // running elsewhere: its worker polls this
    if (wait) await this.waitFor(run.runId);
  }

  /** Resolves with the run once it reached a final status. */
  async waitFor(runId: string, signal?: AbortSignal): Promise<RunRecord | undefined> {
    for await (const _ of this.follow(runId, Number.MAX_SAFE_INTEGER, { signal })) {
      // only the end matters
    }
    return this.#o.store.getRun(runId);
  }

  /**
   * The run's events numbered above `afterSeq`: the stored ones, then live ones until the run ends,
   * without gap or duplicate. Ends at once for a run that already finished.
   */
  async *follow(
    runId: string,
    afterSeq: number,
    options: { modes?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {},
  ): AsyncGenerator<StoredEvent> {
    const buffer: StoredEvent[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const poke = () => {
      wake?.();
      wake = undefined;
    };
    const off = this.#o.hub.subscribe(runId, {
      event: (e) => {
        buffer.push(e);
        poke();
      },
      end: () => {
        ended = true;
        poke();
      },
    });
    const onAbort = () => {
      ended = true;
      poke();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let last = afterSeq;
    try {
      const emit = function* (events: StoredEvent[]) {
        for (const e of events) {
          if (e.seq <= last) continue;
          last = e.seq;
          if (wantsEvent(e.event, options.modes)) yield e;
        }
      };
      if (afterSeq < Number.MAX_SAFE_INTEGER) yield* emit(await this.#o.store.eventsAfter(runId, last));
      for (;;) {
        if (options.signal?.aborted) return;
        if (!ended) {
          const run = await this.#o.store.getRun(runId);
          if (!run || TERMINAL_RUN_STATUSES.has(run.status)) ended = true;
        }
        if (buffer.length) {
          const batch = buffer.splice(0);
          // a live event past the next number: some were published before this follower listened
          if ((batch[0]?.seq ?? 0) > last + 1 && afterSeq < Number.MAX_SAFE_INTEGER) {
            yield* emit(await this.#o.store.eventsAfter(runId, last));
          }
          yield* emit(batch);
        }
        if (ended) {
          if (afterSeq < Number.MAX_SAFE_INTEGER) yield* emit(await this.#o.store.eventsAfter(runId, last));
          return;
        }
        await new Promise<void>((r) => {
          wake = r;
          if (buffer.length || ended) poke();
          // look again now and then: an end published before this follower listened is not heard
          setTimeout(poke, 1_000).unref?.();
        });
      }
    } finally {
      off();
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Starts queued runs while this process has capacity. */
  pump(): void {
    if (this.#stopping || this.#o.concurrency <= 0) return;
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    void (async () => {
      try {
        do {
          this.#pumpAgain = false;
          while (!this.#stopping && this.#active.size < this.#o.concurrency) {
            const run = await this.#o.store.claimNext(this.workerId);
            if (!run) break;
            this.#launch(run);
          }
        } while (this.#pumpAgain);
      } catch (error) {
        console.error("[trellis-server] queue:", error);
      } finally {
        this.#pumping = false;
      }
    })();
  }

  #launch(run: RunRecord): void {
    const active: ActiveRun = {
      controller: new AbortController(),
      drain: new AbortController(),
      stop: undefined,
      done: Promise.resolve(),
    };
    this.#active.set(run.runId, active);
    this.#applyStop(run.runId, run.cancel);
    active.done = (async () => {
      let threadStatus: ThreadStatus | undefined;
      try {
        threadStatus = await executeRun(run, {
          ...this.#o,
          signal: active.controller.signal,
          drainSignal: active.drain.signal,
          stopReason: () => active.stop,
          setStop: (s) => {
            active.stop ??= s;
            active.controller.abort(s);
          },
        });
      } catch (error) {
        console.error(`[trellis-server] run ${run.runId}:`, error);
        threadStatus = "error";
      } finally {
        this.#active.delete(run.runId);
        if (threadStatus !== undefined) await this.#settleThread(run.threadId, threadStatus).catch(() => undefined);
        this.#o.hub.end(run.runId);
        this.pump();
      }
    })();
  }

  async #settleThread(threadId: string, outcome: ThreadStatus | undefined): Promise<void> {
    const remaining = await this.#o.store.activeRuns(threadId);
    if (remaining.length > 0) return this.#o.store.updateThread(threadId, { status: "busy" });
    const thread = await this.#o.store.getThread(threadId);
    if (!thread) return;
    await this.#o.store.updateThread(threadId, {
      status: outcome ?? (thread.status === "busy" ? "idle" : thread.status),
    });
  }

  /**
   * Stops taking runs and stops the running ones at once, leaving them queued: the next start (of this
   * or another process) continues them from their last checkpoint.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#unlisten?.();
    for (const active of this.#active.values()) {
      active.stop = "shutdown";
      active.controller.abort("server shutting down");
    }
    await Promise.all([...this.#active.values()].map((a) => a.done));
  }
}

/** A new run record, pending, from the parts of a create request. @internal */
export function newRunRecord(
  fields: Omit<
    RunRecord,
    "status" | "createdAt" | "updatedAt" | "attempt" | "error" | "preCheckpointId" | "preWriteCount" | "cancel"
  >,
): RunRecord {
  const now = new Date().toISOString();
  if (!fields.runId) throw new TrellisError("INVALID_ARGUMENT", "A run needs an id.");
  return {
    ...fields,
    status: "pending",
    createdAt: now,
    updatedAt: now,
    attempt: 0,
    error: null,
    preCheckpointId: null,
    preWriteCount: 0,
    cancel: null,
  };
}
