import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { type CheckpointSaver, type Clock, systemClock, TrellisError } from "@trellis/checkpoint";
import { rateLimitedLogger, warningKey } from "../operations/log-rate-limit.js";
import type { Logger } from "../operations/worker-log.js";
import type { RunManager } from "../runs/run-manager.js";
import { parseRunRequest } from "../runs/run-request.js";
import type { RunService } from "../runs/run-service.js";
import type { CronRecord, CronStore } from "../stores/cron-store.js";
import type { RunStore } from "../stores/run-store.js";
import type { UserLimits } from "../stores/user-limits.js";
import { nextRunAfter } from "./cron-schedule.js";

/**
 * How often a scheduler looks for due crons by default: cron schedules have minute precision.
 *
 * @example
 * const scheduler = new CronScheduler(parts, { pollMs: DEFAULT_CRON_POLL_MS * 5 });
 */
export const DEFAULT_CRON_POLL_MS = 1_000;
/** Due crons read per look, taken in turns between owners: the most work one look does. */
const BATCH = 50;

/**
 * Options of a {@link CronScheduler}: its clock and how often it looks for due crons.
 *
 * @example
 * const clock = new ManualClock(Date.parse("2026-01-01T08:59:00Z"));
 * const options: CronSchedulerOptions = { clock, pollMs: 500 };
 * const scheduler = new CronScheduler(parts, options);
 */
export interface CronSchedulerOptions {
  /** Default: the system clock. A `ManualClock` lets tests move time. */
  clock?: Clock;
  /** How often the loop started by {@link CronScheduler.start} looks for due crons. Default 1 s. */
  pollMs?: number;
  /**
   * Where the scheduler's lines go; its warnings and errors are rate-limited per event and error code
   * (10 a minute, then one `log-suppressed` line), so a flood of refused ticks cannot fill the log.
   */
  log?: Logger;
  /**
   * Whether a cron's owner may still act. A cron of an owner for whom it is false does not run: its tick
   * is taken and skipped, and a `cron-owner-revoked` warning is written once per cron (until the owner
   * is back). Default: every owner may (the server passes its credentials' users with auth on).
   */
  userActive?: (userId: string | null) => boolean;
}

/**
 * The server's parts a scheduler starts runs with.
 *
 * @example
 * const { runs, store, saver, manager } = server;
 * const parts: CronSchedulerParts = { crons: new SqliteCronStore(database), runs, store, saver, manager };
 * const startedRunIds = await new CronScheduler(parts).tick();
 */
export interface CronSchedulerParts {
  crons: CronStore;
  runs: RunService;
  store: RunStore;
  saver: CheckpointSaver;
  manager: RunManager;
  /** The per-user limits a stateless cron's new thread counts against (none without). */
  limits?: UserLimits;
}

/**
 * The next tick of `cron` strictly after `nowMs`, or null when it has none before its end time.
 *
 * @example
 * nextTick({ schedule: "0 9 * * 1-5", endTimeMs: null, timezone: "Europe/Paris" }, Date.now()); // next weekday 09:00 Paris
 */
export function nextTick(
  cron: Pick<CronRecord, "schedule" | "endTimeMs"> & { timezone?: string | null },
  nowMs: number,
): number | null {
  const next = nextRunAfter(cron.schedule, new Date(nowMs), cron.timezone ?? null)?.getTime() ?? null;
  return next !== null && cron.endTimeMs !== null && next > cron.endTimeMs ? null : next;
}

/**
 * Starts the runs of crons when they are due, through the run service — as the cron's owner, on its
 * thread or on a new thread per tick — so a cron's run is queued, executed, fenced and recovered like
 * any other run.
 *
 * At most once per tick, across schedulers and restarts: a scheduler takes a tick by moving the cron's
 * `next_run_date` past now with a compare-and-set ({@link CronStore.claim}) before it starts the run, so
 * of any number of schedulers on one store exactly one starts it. Ticks missed while no scheduler ran
 * (the server was down) start one run at the first look after the restart, not one per missed tick. A
 * process that dies between taking a tick and queueing its run loses that tick (never runs it twice).
 *
 * @example
 * const scheduler = new CronScheduler(parts, { clock: new ManualClock(Date.parse("2026-01-01T00:00:00Z")) });
 * const started = await scheduler.tick(); // run ids started for the crons due now
 */
export class CronScheduler {
  readonly #p: CronSchedulerParts;
  readonly #clock: Clock;
  readonly #pollMs: number;
  readonly #log: Logger;
  readonly #userActive: (userId: string | null) => boolean;
  /** Crons whose revoked owner was already logged (once each, until the owner is back). */
  readonly #revoked = new Set<string>();
  #timer: unknown;
  #stopped = true;
  #inFlight = new Set<Promise<unknown>>();
  /** Aborts the waits of stateless crons' threads for their runs' ends when the scheduler stops. */
  #closing = closingController();

  constructor(parts: CronSchedulerParts, options: CronSchedulerOptions = {}) {
    this.#p = parts;
    this.#clock = options.clock ?? systemClock;
    this.#pollMs = options.pollMs ?? DEFAULT_CRON_POLL_MS;
    const log = options.log ?? (() => undefined);
    this.#log = rateLimitedLogger(log, { key: warningKey });
    this.#userActive = options.userActive ?? (() => true);
  }

  /** The clock next run dates are computed with. */
  get clock(): Clock {
    return this.#clock;
  }

  /** The store the crons live in. */
  get crons(): CronStore {
    return this.#p.crons;
  }

  /** Whether the loop runs (only processes that execute runs start it). */
  get running(): boolean {
    return !this.#stopped;
  }

  /** Starts looking for due crons every `pollMs`. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#arm();
  }

  /** Stops the loop and waits for a look in progress to finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#closing.abort();
    this.#closing = closingController();
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.allSettled([...this.#inFlight]);
  }

  /**
   * One look: takes every due tick it can and starts its run. Returns the ids of the runs it started
   * (a tick another scheduler took, or whose run was refused, starts none here).
   */
  async tick(): Promise<string[]> {
    const look = this.#look();
    this.#inFlight.add(look);
    try {
      return await look;
    } finally {
      this.#inFlight.delete(look);
    }
  }

  #arm(): void {
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void this.tick()
        .catch((error: unknown) => this.#log({ level: "error", event: "cron-look-failed", error }))
        .finally(() => {
          if (!this.#stopped) this.#arm();
        });
    }, this.#pollMs);
  }

  async #look(): Promise<string[]> {
    const now = this.#clock.now();
    const started: string[] = [];
    for (const cron of await this.#p.crons.due(now, BATCH)) {
      const tick = cron.nextRunMs;
      if (tick === null) continue;
      let next: number | null;
      try {
        next = nextTick(cron, now);
      } catch {
        next = null; // a schedule this version cannot read: stop it rather than retry every look
      }
      if (!(await this.#p.crons.claim(cron.cronId, tick, next))) continue; // another scheduler took it
      if (cron.endTimeMs !== null && tick > cron.endTimeMs) continue;
      if (!this.#userActive(cron.userId)) {
        // its owner has no credential any more: the tick is taken (so it does not come back every look) and skipped
        if (!this.#revoked.has(cron.cronId)) {
          this.#revoked.add(cron.cronId);
          this.#log({ level: "warn", event: "cron-owner-revoked", cronId: cron.cronId, userId: cron.userId });
        }
        continue;
      }
      this.#revoked.delete(cron.cronId);
      const runId = await this.#fire(cron).catch((error: unknown) => {
        this.#log({ level: "warn", event: "cron-run-refused", cronId: cron.cronId, error });
        return undefined;
      });
      if (runId) started.push(runId);
    }
    // the ticks' runs on disk through a power cut, as their claims are
    if (started.length) await this.#p.store.syncCommits?.();
    return started;
  }

  /** Starts the run of one tick; its id. */
  async #fire(cron: CronRecord): Promise<string> {
    // the assistant as its owner sees it now: a graph id of trellis.json, or an assistant made with the API
    const { hosted } = await this.#p.runs.assistant(cron.assistantId, { user: cron.userId });
    const { request } = parseRunRequest({ ...cron.payload, assistant_id: cron.assistantId }, () => hosted, {
      streamDefault: ["values", "updates", "messages-tuple", "custom"],
      onDisconnectDefault: "continue",
    });
    const { input, command, ...kwargs } = request.kwargs;
    const threadId = cron.threadId ?? (await this.#newThread(cron, hosted.assistantId));
    try {
      const run = await this.#p.runs.start({
        assistantId: request.assistantId,
        threadId,
        as: { user: cron.userId },
        // a stateless cron without input runs its graph from the start with the state's defaults
        input: cron.threadId === null && input === null && command === null ? {} : input,
        command,
        metadata: { ...request.metadata, cron_id: cron.cronId },
        multitaskStrategy: request.multitaskStrategy,
        ifNotExists: "reject",
        kwargs,
      });
      if (cron.threadId === null && cron.onRunCompleted !== "keep") this.#deleteAfter(run.runId, threadId);
      return run.runId;
    } catch (error) {
      if (cron.threadId === null) await this.#dropThread(threadId);
      else if (error instanceof TrellisError && error.code === "NOT_FOUND") {
        // its thread was deleted: the cron goes with it, as LangGraph's do
        await this.#p.crons.delete(cron.cronId);
      }
      throw error;
    }
  }

  /** A stateless cron's thread for one tick, owned by the cron's owner and tagged with the cron's id. */
  async #newThread(cron: CronRecord, graphId: string): Promise<string> {
    await this.#p.limits?.checkThreads(cron.userId);
    const threadId = randomUUID();
    const now = new Date(this.#clock.now()).toISOString();
    await this.#p.store.createThread(
      {
        threadId,
        createdAt: now,
        updatedAt: now,
        metadata: {
          graph_id: graphId,
          assistant_id: cron.assistantId,
          cron_id: cron.cronId,
          ...(cron.userId !== null ? { owner: cron.userId } : {}),
        },
        status: "idle",
        owner: cron.userId,
        graphId,
        error: null,
      },
      "raise",
    );
    return threadId;
  }

  /** `on_run_completed: "delete"`: the tick's thread goes once its run ended. */
  #deleteAfter(runId: string, threadId: string): void {
    const signal = this.#closing.signal;
    void this.#p.manager
      .waitFor(runId, signal)
      .then(() => (signal.aborted ? undefined : this.#dropThread(threadId)))
      .catch((error: unknown) => this.#log({ level: "warn", event: "cron-thread-kept", threadId, error }));
  }

  async #dropThread(threadId: string): Promise<void> {
    const thread = await this.#p.store.getThread(threadId);
    if (thread) await this.#p.runs.deleteThread(thread);
  }
}

/**
 * The controller a scheduler's waits listen to: one listener per stateless cron tick whose run has not
 * ended yet, so a look that starts more than 10 is not a listener leak (Node warns past 10).
 */
function closingController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
