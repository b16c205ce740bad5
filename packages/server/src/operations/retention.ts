import type { CheckpointSaver } from "@trellis/checkpoint";
import type { RunStore } from "../stores/run-store.js";
import type { Logger } from "./worker-log.js";

/** What the server keeps, and for how long. Each part is off unless set. */
export interface RetentionSettings {
  /** Finished runs (and their stored events) whose last change is older than this are deleted. */
  runsTtlMs: number | null;
  /**
   * Threads with no queued or running run, unchanged for `idleForMs`, keep only their latest N
   * checkpoints (with what those need: values, deltas, pending writes) — `CheckpointSaver.prune`.
   * Older checkpoints are gone from `history` and time travel.
   */
  keepCheckpoints: number | null;
  /** How long a thread must have been idle before its checkpoints are trimmed. */
  idleForMs: number;
  /** How often a sweep runs (on one process of the cluster at a time). */
  sweepEveryMs: number;
}

/** What one sweep did. */
export interface SweepResult {
  /** false when another process was sweeping: this one did nothing. */
  swept: boolean;
  runsDeleted: number;
  threadsTrimmed: number;
  ms: number;
}

const BATCH = 500;

/**
 * Deletes finished runs and their events past `runsTtlMs`, and trims the checkpoints of idle threads to
 * the latest `keepCheckpoints`, every `sweepEveryMs`. Every process may run one: a sweep takes the
 * store's `retention` lease without waiting, so one process sweeps at a time and the others skip.
 *
 * @example
 * const sweeper = new RetentionSweeper({ store, saver, settings: { runsTtlMs: 7 * 86_400_000, keepCheckpoints: 20, idleForMs: 3_600_000, sweepEveryMs: 600_000 } });
 * sweeper.start();
 */
export class RetentionSweeper {
  readonly #store: RunStore;
  readonly #saver: CheckpointSaver;
  readonly #settings: RetentionSettings;
  readonly #log: Logger | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<SweepResult> | undefined;
  /** Threads idle since before this were trimmed by this process already. */
  #trimmedUntil: string | null = null;

  constructor(options: { store: RunStore; saver: CheckpointSaver; settings: RetentionSettings; log?: Logger }) {
    this.#store = options.store;
    this.#saver = options.saver;
    this.#settings = options.settings;
    this.#log = options.log;
  }

  /** Whether any part of retention is on. */
  get enabled(): boolean {
    return this.#settings.runsTtlMs !== null || this.#settings.keepCheckpoints !== null;
  }

  /** Sweeps every `sweepEveryMs` (the first one after one interval). */
  start(): void {
    if (!this.enabled || this.#timer) return;
    this.#timer = setInterval(() => void this.sweep().catch(() => undefined), this.#settings.sweepEveryMs);
    this.#timer.unref?.();
  }

  /** Stops sweeping; waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** One sweep now (skipped when another process is sweeping). */
  sweep(): Promise<SweepResult> {
    this.#running ??= this.#sweep().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #sweep(): Promise<SweepResult> {
    const started = Date.now();
    const result: SweepResult = { swept: false, runsDeleted: 0, threadsTrimmed: 0, ms: 0 };
    try {
      // the lease outlives a sweep that is slow; a process that dies mid-sweep frees it at its expiry
      const leaseMs = Math.max(this.#settings.sweepEveryMs, 60_000);
      result.swept = await this.#store.exclusive("retention", leaseMs, async () => {
        const { runsTtlMs, keepCheckpoints } = this.#settings;
        if (runsTtlMs !== null) {
          for (;;) {
            const n = await this.#store.sweepRuns({ runsOlderThanMs: runsTtlMs, limit: BATCH });
            result.runsDeleted += n;
            if (n < BATCH) break;
          }
        }
        if (keepCheckpoints !== null) result.threadsTrimmed = await this.#trim(keepCheckpoints);
      });
    } catch (error) {
      this.#log?.({ level: "error", event: "retention-failed", error });
      throw error;
    } finally {
      result.ms = Date.now() - started;
    }
    if (result.swept && (result.runsDeleted || result.threadsTrimmed)) {
      this.#log?.({ level: "info", event: "retention", ...result });
    }
    return result;
  }

  /** Prunes the threads that became idle since the last sweep of this process (all on its first). */
  async #trim(keepLast: number): Promise<number> {
    let cursor = this.#trimmedUntil;
    let trimmed = 0;
    let newest = cursor;
    for (;;) {
      const threads = await this.#store.idleThreads({
        idleForMs: this.#settings.idleForMs,
        after: cursor,
        limit: BATCH,
      });
      for (const thread of threads) {
        await this.#saver.prune(thread.threadId, { keepLast });
        trimmed++;
        newest = thread.updatedAt;
      }
      if (threads.length < BATCH) break;
      cursor = newest;
    }
    this.#trimmedUntil = newest;
    return trimmed;
  }
}
