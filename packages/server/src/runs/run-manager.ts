import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { type CheckpointSaver, type Store, TrellisError } from "@trellis/checkpoint";
import type { ModelPrices } from "@trellis/core";
import type { AssistantRegistry } from "../assistants/assistant-registry.js";
import type { HostedGraph } from "../assistants/graph-registry.js";
import { rateLimitedLogger, warningKey } from "../operations/log-rate-limit.js";
import { traceIdField } from "../operations/trace-context.js";
import { jsonLogger, type Logger } from "../operations/worker-log.js";
import {
  attemptLost,
  type CancelAction,
  type MultitaskStrategy,
  type RunRecord,
  type RunStore,
  type StoredEvent,
  TERMINAL_RUN_STATUSES,
} from "../stores/run-store.js";
import type { EventHub } from "../streams/event-hub.js";
import { type FollowOptions, followRun } from "../streams/run-follow.js";
import { type ExecuteContext, type ExecuteOutcome, executeRun, type RunStop } from "./run-executor.js";

/**
 * How often a worker reports its runs (scale-out).
 *
 * @example
 * const shared = { heartbeatMs: DEFAULT_HEARTBEAT_MS, orphanAfterMs: DEFAULT_ORPHAN_AFTER_MS };
 * const manager = new RunManager({ ...options, shared });
 */
export const DEFAULT_HEARTBEAT_MS = 1_000;
/**
 * A run whose worker was silent this long goes back to the queue: with the heartbeat, a dead worker's
 * runs are picked up within 5 s.
 *
 * @example
 * await store.requeueOrphans(DEFAULT_ORPHAN_AFTER_MS); // runs whose worker went silent go back to the queue
 */
export const DEFAULT_ORPHAN_AFTER_MS = 4_000;

/**
 * Options of {@link RunManager}.
 *
 * @example
 * const options: RunManagerOptions = {
 *   store,
 *   hub: new LocalEventHub(),
 *   saver,
 *   graphs,
 *   concurrency: 4,
 *   limits: { stateBytes: 8 * 1024 * 1024, runTimeMs: 15 * 60_000 },
 * };
 * const manager = new RunManager(options);
 */
export interface RunManagerOptions {
  store: RunStore;
  hub: EventHub;
  saver: CheckpointSaver;
  graphs: ReadonlyMap<string, HostedGraph>;
  /** Where workers look up a run's assistant (a run of a deleted assistant fails instead of running). */
  assistants?: Pick<AssistantRegistry, "resolve">;
  /** The long-term memory store the graphs get as `ctx.store` (scoped to the run's owner with auth on). */
  itemStore?: Store;
  /** Runs executing at once in this process; 0 for an API process that leaves runs to workers. */
  concurrency: number;
  limits: { stateBytes: number; runTimeMs: number };
  /** US dollars per million tokens per model, for the cost in a run's `metadata.usage`. */
  prices?: ModelPrices | undefined;
  /**
   * Several processes share the store (scale-out): every `heartbeatMs` this process reports its runs
   * (and applies stops other processes asked for), takes back runs whose worker fell silent for
   * `orphanAfterMs`, and looks for queued work. A run this process has not reported for longer than
   * `orphanAfterMs - heartbeatMs` (it was paused, or the database did not answer) may already be
   * another worker's: its attempt stops writing at once (self-fencing).
   */
  shared?: { heartbeatMs: number; orphanAfterMs: number };
  /** Wakes idle workers when a run is queued (Redis Streams in scale-out). */
  wake?: QueueWake;
  /** Where log lines go. Default: JSON lines; info lines (claims, ends) only when `shared`. */
  log?: Logger;
  /** Also receives every log entry, whatever `log` keeps (the server's metrics count them). */
  onLog?: Logger;
  /**
   * Test hook: called at named points of an attempt (`claimed`, `before-finish:<status>`). Not for
   * applications; public because the reliability suite (another package) injects faults through it.
   */
  point?: (name: string, run: RunRecord) => Promise<void>;
}

/**
 * A channel that tells workers "the queue has something" — a hint, the store stays the truth.
 *
 * @example
 * const listeners = new Set<() => void>();
 * const wake: QueueWake = {
 *   notify: async () => listeners.forEach((l) => l()),
 *   listen: (onWake) => {
 *     listeners.add(onWake);
 *     return async () => {
 *       listeners.delete(onWake);
 *     };
 *   },
 * };
 */
export interface QueueWake {
  notify(): Promise<void>;
  /** Calls `onWake` on every notification until the returned function is called. */
  listen(onWake: () => void): () => Promise<void>;
}

interface ActiveRun {
  attempt: number;
  /** The run's thread, for the log lines of an attempt that loses its run. */
  threadId: string;
  controller: AbortController;
  drain: AbortController;
  stop: RunStop | undefined;
  done: Promise<void>;
  /** When (monotonic ms) the last claim or heartbeat that the store accepted for this attempt was sent. */
  confirmedAt: number;
  /** Why this attempt may no longer write, once it may not. */
  lost: string | undefined;
}

/**
 * The queue and its workers: accepts runs (applying the multitask strategy), executes them with the
 * configured concurrency, persists and fans out their events, cancels them, and after a restart picks
 * up the runs that were in flight. Each claim is a new attempt of its run; every write of an attempt is
 * fenced by the store, and an attempt that lost its run (requeued after its worker fell silent) is
 * aborted.
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
  readonly #log: Logger;
  #stopping = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #pumping = false;
  #pumpAgain = false;
  #lastTick: { at: string; ok: boolean; error?: string } | undefined;
  readonly workerId = `worker-${randomUUID()}`;

  constructor(options: RunManagerOptions) {
    this.#o = options;
    // warnings and errors at most 10 a minute per event and code (metrics, through onLog, count them all)
    const log = rateLimitedLogger(options.log ?? jsonLogger({ worker: this.workerId }, { quiet: !options.shared }), {
      key: warningKey,
    });
    const onLog = options.onLog;
    this.#log = onLog
      ? (entry) => {
          onLog(entry);
          log(entry);
        }
      : log;
  }

  /** Takes back runs a dead process left running, then starts working the queue. */
  async start(): Promise<void> {
    const shared = this.#o.shared;
    if (this.#o.concurrency > 0) await this.#requeue(shared?.orphanAfterMs);
    if (shared && this.#o.concurrency > 0) {
      this.#timer = setInterval(() => void this.#tick(shared.orphanAfterMs), shared.heartbeatMs);
      this.#timer.unref?.();
      this.#unlisten = this.#o.wake?.listen(() => this.pump());
    }
    this.pump();
  }

  /** What a health check reports: capacity, runs in flight, and whether the last heartbeat went through. */
  health(): {
    worker: string;
    concurrency: number;
    active: Array<{ runId: string; attempt: number }>;
    stopping: boolean;
    lastHeartbeat: { at: string; ok: boolean; error?: string } | undefined;
  } {
    return {
      worker: this.workerId,
      concurrency: this.#o.concurrency,
      active: [...this.#active].map(([runId, a]) => ({ runId, attempt: a.attempt })),
      stopping: this.#stopping,
      lastHeartbeat: this.#lastTick,
    };
  }

  async #requeue(staleMs: number | undefined): Promise<void> {
    const { runs, repairedThreads } = await this.#o.store.requeueOrphans(staleMs);
    for (const r of runs) {
      this.#log({
        level: "warn",
        event: "requeue",
        runId: r.runId,
        threadId: r.threadId,
        attempt: r.attempt,
        from: r.workerId,
      });
    }
    for (const threadId of repairedThreads) this.#log({ level: "warn", event: "thread-repaired", threadId });
  }

  async #tick(orphanAfterMs: number): Promise<void> {
    const sentAt = performance.now();
    try {
      const attempts = [...this.#active].map(([runId, a]) => ({ runId, attempt: a.attempt }));
      const { stops, lost } = await this.#o.store.heartbeat(this.workerId, attempts);
      const lostSet = new Set(lost);
      for (const { runId, attempt } of attempts) {
        const active = this.#active.get(runId);
        if (active?.attempt === attempt && !lostSet.has(runId)) active.confirmedAt = sentAt;
      }
      for (const runId of lost) this.#lose(runId, "the store no longer lists this attempt as the run's");
      for (const { runId, cancel } of stops) this.#applyStop(runId, cancel);
      await this.#requeue(orphanAfterMs);
      this.#lastTick = { at: new Date().toISOString(), ok: true };
      this.pump();
    } catch (error) {
      this.#lastTick = { at: new Date().toISOString(), ok: false, error: (error as Error)?.message ?? String(error) };
      this.#log({ level: "error", event: "heartbeat-failed", error });
    }
  }

  /** Aborts an attempt that may no longer write (another worker may own its run). */
  #lose(runId: string, why: string): void {
    const active = this.#active.get(runId);
    if (!active || active.lost) return;
    active.lost = why;
    this.#log({
      level: "warn",
      event: "lease-lost",
      runId,
      threadId: active.threadId,
      attempt: active.attempt,
      reason: why,
    });
    active.stop = "lost";
    active.controller.abort(attemptLost(runId, active.attempt));
  }

  /**
   * Throws LEASE_LOST when the attempt may no longer write: it was aborted as lost, or (scale-out) its
   * last confirmed heartbeat is so old that other workers may have taken the run back.
   */
  #fence(runId: string, active: ActiveRun): void {
    if (!active.lost && this.#o.shared) {
      const { heartbeatMs, orphanAfterMs } = this.#o.shared;
      const limit = orphanAfterMs > heartbeatMs ? orphanAfterMs - heartbeatMs : orphanAfterMs / 2;
      const silentFor = performance.now() - active.confirmedAt;
      if (silentFor > limit) this.#lose(runId, `no heartbeat confirmed for ${Math.round(silentFor)} ms`);
    }
    if (active.lost) throw attemptLost(runId, active.attempt);
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
    if (active && !active.lost) {
      active.stop = action === "rollback" ? "rollback" : "cancel";
      active.controller.abort(`cancelled (${action})`);
      if (wait) await active.done;
      return;
    }
    // queued: cancelled in the store; running elsewhere: its worker reads the stop with its heartbeat
    const result = await this.#o.store.cancelRun(run.runId, action);
    if (result === "cancelled") this.#o.hub.end(run.runId);
    else if (result === "signalled" && wait) await this.waitFor(run.runId);
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
   *
   * Memory stays bounded whatever the reader does: stored events are read a page at a time as the
   * reader takes them — at most `pageSize` events (default 100) and, past the first, `pageBytes` bytes
   * of stored data (default 1 MiB), so a run of a few large events is paged too — and while the reader
   * is slow at most `10 × pageSize` live events, and `10 × pageBytes` of them, wait for it: past that
   * they are dropped and read back from the store when their turn comes (events are stored before they
   * are published). A stalled reader holds one page and that buffer, not the run.
   */
  follow(runId: string, afterSeq: number, options: FollowOptions = {}): AsyncGenerator<StoredEvent> {
    return followRun(this.#o, runId, afterSeq, options);
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
            const sentAt = performance.now();
            const run = await this.#o.store.claimNext(this.workerId);
            if (!run) break;
            this.#launch(run, sentAt);
          }
        } while (this.#pumpAgain);
      } catch (error) {
        this.#log({ level: "error", event: "claim-failed", error });
      } finally {
        this.#pumping = false;
      }
    })();
  }

  #launch(run: RunRecord, claimSentAt: number): void {
    // this process claimed the run again (its earlier attempt was taken back): that attempt is stale
    if (this.#active.has(run.runId)) this.#lose(run.runId, `attempt ${run.attempt} of the run was claimed`);
    const active: ActiveRun = {
      attempt: run.attempt,
      threadId: run.threadId,
      controller: new AbortController(),
      drain: new AbortController(),
      stop: undefined,
      done: Promise.resolve(),
      confirmedAt: claimSentAt,
      lost: undefined,
    };
    this.#active.set(run.runId, active);
    const queuedMs = Math.max(0, Date.now() - Date.parse(run.createdAt));
    const traced = traceIdField(run.kwargs.traceContext);
    const assistantId = run.assistantId;
    this.#log({
      level: "info",
      event: "claim",
      runId: run.runId,
      threadId: run.threadId,
      ...traced,
      attempt: run.attempt,
      assistantId,
      queuedMs,
    });
    this.#applyStop(run.runId, run.cancel);
    active.done = (async () => {
      let outcome: ExecuteOutcome | undefined;
      const started = performance.now();
      try {
        await this.#o.point?.("claimed", run);
        const { point, ...options } = this.#o;
        // the run's keys assigned onto `options` (this call's own copy), not a literal adding them after a
        // spread of it: that gives each run's context a hidden class of its own on V8
        const ctx: ExecuteContext = Object.assign(options, {
          signal: active.controller.signal,
          drainSignal: active.drain.signal,
          stopReason: () => active.stop,
          setStop: (s: RunStop) => {
            active.stop ??= s;
            active.controller.abort(s);
          },
          fence: () => this.#fence(run.runId, active),
          lost: (why: string) => this.#lose(run.runId, why),
        });
        if (this.#o.shared) ctx.leaseTtlMs = this.#o.shared.orphanAfterMs;
        if (point) ctx.point = (name: string) => point(name, run);
        outcome = await executeRun(run, ctx);
      } catch (error) {
        this.#log({ level: "error", event: "run-failed", runId: run.runId, attempt: run.attempt, error });
      } finally {
        if (this.#active.get(run.runId) === active) this.#active.delete(run.runId);
        const ms = Math.round(performance.now() - started);
        const ids = {
          runId: run.runId,
          threadId: run.threadId,
          ...traceIdField(run.kwargs.traceContext),
          attempt: run.attempt,
          ms,
        };
        if (outcome?.kind === "finished") {
          const failed = outcome.error ? { code: outcome.error.error, message: outcome.error.message } : {};
          const level = outcome.status === "error" || outcome.status === "timeout" ? "error" : "info";
          this.#log({ level, event: "finish", ...ids, status: outcome.status, ...failed });
          this.#o.hub.end(run.runId);
        } else if (outcome?.kind === "lost") {
          this.#log({ level: "warn", event: "fenced", ...ids, reason: outcome.reason });
          // still ours in the store (self-fenced): back to the queue now rather than after orphanAfterMs
          if (await this.#o.store.releaseRun(run.runId, run.attempt).catch(() => false)) {
            this.#log({ level: "warn", event: "release", ...ids });
          }
        } else if (outcome?.kind === "released") {
          this.#log({ level: "info", event: "release", ...ids });
        }
        this.pump();
      }
    })();
  }

  /**
   * Stops taking runs and stops the running ones at once, leaving them queued: the next start (of this
   * or another process) continues them from their last checkpoint. With `drainMs`, running runs first
   * get that long to finish their superstep in progress (they are drained: stored, then queued).
   */
  async stop(options: { drainMs?: number } = {}): Promise<void> {
    this.#stopping = true;
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.();
    if (options.drainMs && this.#active.size > 0) {
      for (const active of this.#active.values()) {
        active.stop ??= "shutdown";
        active.drain.abort("server shutting down");
      }
      const all = Promise.all([...this.#active.values()].map((a) => a.done));
      await Promise.race([all, new Promise((r) => setTimeout(r, options.drainMs).unref?.())]);
    }
    for (const active of this.#active.values()) {
      active.stop = "shutdown";
      active.controller.abort("server shutting down");
    }
    await Promise.all([...this.#active.values()].map((a) => a.done));
    // heartbeats go on until the last attempt stopped: a run still writing is never taken as orphaned
    if (this.#timer) clearInterval(this.#timer);
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
  // copied, then the keys set (the same object as a literal adding them after a spread, without a new
  // hidden class per run on V8); `fields` is the server's own object, not parsed input
  const record = Object.assign({}, fields) as RunRecord;
  record.status = "pending";
  record.createdAt = now;
  record.updatedAt = now;
  record.attempt = 0;
  record.error = null;
  record.preCheckpointId = null;
  record.preWriteCount = 0;
  record.cancel = null;
  return record;
}
