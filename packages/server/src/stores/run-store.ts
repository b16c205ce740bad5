import { TrellisError, type TrellisErrorCode } from "@trellis/checkpoint";

/**
 * A run's lifecycle, as LangGraph's Agent Server reports it: a run that reached a pause (an interrupt, a
 * breakpoint) is `success` and its thread `interrupted`; `interrupted` is a run that was stopped (cancel,
 * multitask `interrupt`/`rollback`).
 *
 * @example
 * const run = await server.runs.start(request);
 * const status: RunStatus = (await server.runs.wait(run.runId)).status; // "success" even when it paused
 */
export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
/** Why a run failed: one of Trellis's error codes (every code a door reports is in the union), its message, its details. */
export interface RunError {
  error: TrellisErrorCode;
  message: string;
  details?: unknown;
}
/**
 * A thread's status: `busy` while a run is queued or running on it.
 *
 * @example
 * const thread = await server.store.getThread(threadId);
 * const status: ThreadStatus | undefined = thread?.status; // "interrupted" while it waits on a person
 */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
/**
 * What to do with a new run when the thread already has one.
 *
 * @example
 * const strategy: MultitaskStrategy = "enqueue"; // the new run waits for the one in progress
 * await server.runs.start({ assistantId: "tutor", threadId, as: { user: null }, input, multitaskStrategy: strategy });
 */
export type MultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";
/**
 * How a cancelled run leaves its thread: `interrupt` keeps its progress, `rollback` removes it.
 *
 * @example
 * const action: CancelAction = "rollback"; // drop what the run wrote
 * await server.runs.cancel(run, action, true);
 */
export type CancelAction = "interrupt" | "rollback";

/**
 * Statuses after which a run never changes again.
 *
 * @example
 * const run = await server.store.getRun(runId);
 * if (run && TERMINAL_RUN_STATUSES.has(run.status)) console.log("finished:", run.status);
 */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(["error", "success", "timeout", "interrupted"]);

/**
 * A thread as the server stores it (its state lives in the checkpoint saver).
 *
 * @example
 * const thread: ThreadRecord = await server.runs.thread(threadId, { user: "ana" }); // 404 unless it is Ana's
 * console.log(thread.status, thread.graphId, thread.metadata);
 */
export interface ThreadRecord {
  threadId: string;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  status: ThreadStatus;
  /** The user that created it when auth is on; null otherwise. */
  owner: string | null;
  /** Assistant whose graph reads and writes the thread's state; set by the first run. */
  graphId: string | null;
  error: unknown;
}

/**
 * What a run was asked to do: the parts of the create request the worker needs.
 *
 * @example
 * const kwargs = { streamMode: ["updates"], durability: "exit" as const };
 * const run = await server.runs.start({ assistantId: "tutor", as: { user: null }, input, kwargs });
 * const asked: RunKwargs = run.kwargs; // what the worker will run
 */
export interface RunKwargs {
  input: unknown;
  command: { resume?: unknown; update?: unknown; goto?: unknown } | null;
  config: { recursion_limit?: number; configurable?: Record<string, unknown>; tags?: string[] };
  streamMode: string[];
  streamSubgraphs: boolean;
  interruptBefore: string[] | "*" | null;
  interruptAfter: string[] | "*" | null;
  checkpointId: string | null;
  durability: "sync" | "async" | "exit" | null;
  /**
   * Set by the run service on a resume it accepted: the checkpoint whose pause the resume answers (the
   * pause pending when the request arrived). The run fails with `RESUME_MISMATCH`, writing nothing, when
   * the thread has moved on by its turn.
   */
  expectedCheckpointId?: string;
  /**
   * The run's `context` merged over its assistant's (LangGraph's runtime context). Nodes read it, with
   * the run's `configurable`, as `ctx.config.configurable`; the run service folds it in when it accepts
   * the run.
   */
  context?: Record<string, unknown>;
  /** The graph the run's assistant ran when the run was accepted (the thread's graph). */
  graphId?: string;
  /**
   * W3C trace context (`traceparent`, `tracestate`) active when the run was accepted: the worker's run
   * span continues that trace (docs/observability.md).
   */
  traceContext?: Record<string, string>;
  /**
   * A stateless run whose caller waits for its end (`POST /runs/wait`, `/runs/stream`): its thread is
   * deleted once the answer is out, so its checkpoints commit with the store's bookkeeping
   * ({@link RunStore.commitQuickly}) and reach the disk with the answer's sync.
   */
  temporaryThread?: boolean;
}

/**
 * A run as the server stores it.
 *
 * @example
 * const run: RunRecord = await server.runs.start({ assistantId: "tutor", threadId, as: { user: null }, input });
 * console.log(run.runId, run.status, run.attempt, run.error?.error);
 */
export interface RunRecord {
  runId: string;
  threadId: string;
  assistantId: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  kwargs: RunKwargs;
  multitaskStrategy: MultitaskStrategy;
  owner: string | null;
  /** How many times a worker started it (more than 1 after a crash or restart). */
  attempt: number;
  /** Why it failed: the error code, its message, and its details (for `THREAD_PAUSED`, the pending interrupts). */
  error: RunError | null;
  /** The thread's latest checkpoint when the run first started, and how many pending writes it had. */
  preCheckpointId: string | null;
  preWriteCount: number;
  /**
   * A stop asked for while the run was queued or running: a cancel (`interrupt`, `rollback`) or a
   * multitask `drain` (stop at the next step boundary). Workers in other processes read it.
   */
  cancel: CancelAction | "drain" | null;
}

/**
 * One event of a run's stream, numbered from 1.
 *
 * @example
 * const events: StoredEvent[] = await server.store.eventsAfter(runId, 0);
 * for (const e of events) console.log(e.seq, e.event, e.data);
 */
export interface StoredEvent {
  seq: number;
  event: string;
  data: unknown;
}

/**
 * A page of a run's events: at most `limit` events and, past the first, `maxBytes` bytes of their
 * stored data (JSON text).
 *
 * @example
 * await store.eventsAfter(runId, 0, { limit: 100, maxBytes: 1 << 20 });
 */
export interface EventPage {
  limit: number;
  maxBytes?: number;
}

/** `eventsAfter`'s page argument as a limit (null: none) and a byte budget (null: none). @internal */
export function eventPageOf(page: number | EventPage | undefined): { limit: number | null; maxBytes: number | null } {
  if (page === undefined) return { limit: null, maxBytes: null };
  if (typeof page === "number") return { limit: page, maxBytes: null };
  return { limit: page.limit, maxBytes: page.maxBytes ?? null };
}

/** An event a run's attempt appends to its stream (numbered by the store). */
export interface NewEvent {
  event: string;
  data: unknown;
}

/**
 * What a claimed attempt records before it runs its graph, in one transaction: the thread's head when
 * the run first started (kept from the first attempt that recorded it), the thread busy under the
 * run's graph, and its first events.
 */
export interface AttemptStart {
  preCheckpointId: string | null;
  preWriteCount: number;
  graphId: string;
  events: NewEvent[];
}

/** How a run's attempt ended, written with its thread's status in one transaction. */
export interface AttemptEnd {
  status: RunStatus;
  error: RunRecord["error"];
  /** The thread's status after the run, unless another run of the thread is queued (then `busy`). */
  threadStatus: ThreadStatus;
  /** Last events of the run (an `error`, the final `values`), appended in the same transaction. */
  events: NewEvent[];
  /**
   * The run may have written to the thread (false only for a run refused before it wrote anything): the
   * store records the change ({@link RunStore.markStateChanged}) before the run is seen ended.
   */
  stateChanged?: boolean;
  /**
   * The run's metadata to store with its end (its `usage` and `timeline`), so a client that sees the
   * run end sees them; absent: the metadata stays as it is.
   */
  metadata?: Record<string, unknown>;
}

/** What {@link RunStore.heartbeat} found. */
export interface HeartbeatResult {
  /** Stops asked for these runs (by another process) meanwhile. */
  stops: Array<{ runId: string; cancel: RunRecord["cancel"] }>;
  /** Runs this worker no longer owns under the attempt it holds (requeued, claimed again, finished). */
  lost: string[];
}

/** What {@link RunStore.requeueOrphans} put back. */
export interface RequeueResult {
  runs: Array<{ runId: string; threadId: string; attempt: number; workerId: string | null }>;
  /** Threads left `busy` with no queued or running run, set to their last run's outcome. */
  repairedThreads: string[];
}

/** What {@link RunStore.cancelRun} did. */
export type CancelResult = "cancelled" | "signalled" | "finished" | "missing";

/** Settings of {@link RunStore.sweep}. */
export interface SweepOptions {
  /** Finished runs (and their events) whose last change is older than this are deleted. */
  runsOlderThanMs: number;
  /** At most this many runs per call. */
  limit: number;
}

/**
 * The error of a write by an attempt that no longer owns its run: another worker claimed it (after
 * this one fell silent), or it ended. Nothing was written; the attempt must stop.
 */
export function attemptLost(runId: string, attempt: number): TrellisError {
  return new TrellisError(
    "LEASE_LOST",
    `Attempt ${attempt} of run ${runId} no longer owns the run (it was requeued, claimed by another attempt, or ended): nothing was written.`,
    { details: { runId, attempt } },
  );
}

/** True for the error of {@link attemptLost} (or a checkpoint write refused for a lost lease). */
export function isAttemptLost(error: unknown): boolean {
  return error instanceof TrellisError && error.code === "LEASE_LOST";
}

/** Filters of {@link RunStore.searchThreads}. */
export interface ThreadQuery {
  metadata?: Record<string, unknown>;
  status?: ThreadStatus;
  ids?: string[];
  owner?: string | null;
  limit: number;
  offset: number;
  sortBy?: "thread_id" | "status" | "created_at" | "updated_at";
  sortOrder?: "asc" | "desc";
}

/**
 * What {@link RunStore.stateClock} read: when the thread's state last changed and the store's clock now
 * (ms since the epoch, on the store's clock).
 *
 * @example
 * const { changedAt, now } = await store.stateClock(threadId);
 * const changedSince = changedAt !== null && changedAt > now - elapsedMs;
 */
export interface StateClock {
  changedAt: number | null;
  now: number;
  /**
   * This process's `performance.now()` at the moment `now` was read, when the store reads its clock in
   * this process (the embedded SQLite store). The run service then measures a request's age up to that
   * moment; without it, up to when the read's answer is handled, which a busy event loop makes later
   * (an older-looking request, refused as if the thread had changed after it).
   */
  readAt?: number;
}

/** What {@link RunStore.enqueueRun} did to the runs already on the thread. */
export interface EnqueueResult {
  /** The run that is running on the thread, for the caller to signal (interrupt, rollback). */
  running: RunRecord | undefined;
  /** Queued runs that were cancelled before they started (interrupt, rollback). */
  dropped: RunRecord[];
}

/**
 * Where the server keeps threads, runs, their events and the queue. The embedded implementation uses
 * the SQLite file; a scale-out one uses Postgres. Every method is atomic.
 *
 * @example
 * const run = await store.claimNext("worker-1"); // a pending run whose thread is free, fair between owners
 */
export interface RunStore {
  createThread(thread: ThreadRecord, ifExists: "raise" | "do_nothing"): Promise<ThreadRecord>;
  getThread(threadId: string): Promise<ThreadRecord | undefined>;
  updateThread(
    threadId: string,
    patch: Partial<Pick<ThreadRecord, "metadata" | "status" | "graphId" | "error">>,
  ): Promise<void>;
  searchThreads(query: ThreadQuery): Promise<ThreadRecord[]>;
  countThreads(query: Omit<ThreadQuery, "limit" | "offset">): Promise<number>;
  /** Removes the thread, its runs and their events. */
  deleteThread(threadId: string): Promise<void>;
  /**
   * Records that the thread's state changed now (its state was updated, or copied in), on the store's
   * clock; {@link finishRun} records it for a run that wrote to the thread, before the run is seen ended.
   * Called after the change is stored.
   */
  markStateChanged(threadId: string): Promise<void>;
  /**
   * When the thread's state last changed ({@link markStateChanged}; null: never, or no such thread) and
   * the store's clock now, read in one go, in ms since the epoch: the run service compares a request's
   * arrival with the change on this one clock (the database's in scale-out), whatever the hosts' clocks.
   */
  stateClock(threadId: string): Promise<StateClock>;

  /**
   * Inserts a pending run, applying `strategy` against the thread's active runs in the same
   * transaction: `reject` throws CONFLICT, `enqueue` queues behind them, `interrupt`/`rollback` drop the
   * queued ones and return the running one.
   */
  enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]>;
  updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel" | "metadata">>,
  ): Promise<void>;
  deleteRun(runId: string): Promise<void>;
  /** How many runs are pending (the queue's depth) and running, across every worker: for `/metrics`. */
  runCounts?(): Promise<Partial<Record<RunStatus, number>>>;
  /** Pending or running runs of a thread, oldest first. */
  activeRuns(threadId: string): Promise<RunRecord[]>;
  /**
   * Claims a pending run whose thread has no running run (the oldest pending run of its thread), fairly
   * between owners: of each owner's oldest such run, the one whose owner has the fewest running runs,
   * ties by age. Marks it running for `workerId` as a new attempt (attempt + 1) and returns it. Never
   * waits on another worker's claim. Every later write of the attempt names `(runId, attempt)` and is
   * refused (LEASE_LOST) once the attempt is stale.
   */
  claimNext(workerId: string): Promise<RunRecord | undefined>;
  /** How many runs of `owner` are pending (queued): what `limits.queuedRunsPerUser` counts. */
  pendingRunsOf?(owner: string | null): Promise<number>;
  /**
   * Records the start of an attempt ({@link AttemptStart}) and appends its first events; returns their
   * numbers and the pre-run head as recorded (by this attempt or the first one that recorded it).
   * Refused (LEASE_LOST) unless the run is running under `attempt`.
   */
  beginAttempt(
    runId: string,
    attempt: number,
    start: AttemptStart,
  ): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }>;
  /** Appends events of an attempt in order; returns their numbers. Refused unless the attempt is current. */
  appendEvents(runId: string, attempt: number, events: NewEvent[]): Promise<number[]>;
  /**
   * Ends an attempt: the run's final status and error, its last events, and its thread's status, in one
   * transaction. Refused (LEASE_LOST) unless the run is running under `attempt`; returns the events' numbers.
   */
  finishRun(runId: string, attempt: number, end: AttemptEnd): Promise<number[]>;
  /** Puts a running attempt's run back in the queue (shutdown); false when the attempt was not current. */
  releaseRun(runId: string, attempt: number): Promise<boolean>;
  /**
   * Cancels a run in one transaction: a pending run becomes `interrupted` (its thread settled), a
   * running one gets the stop for its worker to apply.
   */
  cancelRun(runId: string, action: CancelAction): Promise<CancelResult>;
  /**
   * Records that `workerId` still executes these attempts; returns the stops asked for them meanwhile
   * (by another process) and the runs it no longer owns.
   */
  heartbeat(workerId: string, runs: Array<{ runId: string; attempt: number }>): Promise<HeartbeatResult>;
  /**
   * Puts runs left `running` by a process that died back in the queue, and repairs threads left `busy`
   * with no queued or running run. With `staleMs`, only runs whose worker has not sent a heartbeat for
   * that long (several processes share the store); without, every running run (the only process has
   * just started).
   */
  requeueOrphans(staleMs?: number): Promise<RequeueResult>;
  /** Deletes finished runs older than the cutoff and their events; returns how many runs. */
  sweepRuns(options: SweepOptions): Promise<number>;
  /**
   * Threads with no queued or running run whose last change is older than `idleForMs`, changed after
   * `after` (a cursor: the `updatedAt` of the last one returned), oldest first.
   */
  idleThreads(options: { idleForMs: number; after: string | null; limit: number }): Promise<ThreadRecord[]>;
  /**
   * Runs `fn` only if no other process runs the task `name` now (a lease of `ttlMs` taken without
   * waiting); returns false when another process holds it.
   */
  exclusive(name: string, ttlMs: number, fn: () => Promise<void>): Promise<boolean>;

  /**
   * Makes every commit this store made so far durable through a power cut; resolves at once when they
   * already are. The store may commit its bookkeeping without waiting for the disk (it survives a
   * process crash, not a power cut): the server calls this before it tells anyone about those commits —
   * before every HTTP answer and stream header, and before it sends a stored event — so nothing a client
   * was told can be lost. Absent: every commit is durable when it returns.
   *
   * @example
   * await store.enqueueRun(run, "reject"); // fast: not yet on disk through a power cut
   * await store.syncCommits?.(); // now it is: answer the client
   */
  syncCommits?(): Promise<void>;

  /**
   * Runs `fn` with the commits it makes synchronously — its checkpoint saver's, when the saver shares
   * this store's database — made the way the store commits its bookkeeping: without waiting for the
   * disk, synced by the next {@link syncCommits}. The server passes a stateless run's checkpoints
   * through it (its thread is deleted once the answer is out, and the answer waits for the sync).
   * Absent: `fn` commits as its saver was opened.
   *
   * @example
   * await (store.commitQuickly ? store.commitQuickly(() => saver.put(request)) : saver.put(request));
   */
  commitQuickly?<T>(fn: () => T): T;

  /** Appends an event to the run's stream whatever its attempt (request side); returns its number. */
  appendEvent(runId: string, event: string, data: unknown): Promise<number>;
  /**
   * The run's events numbered above `afterSeq`, in order: at most `limit` of them (all without), and
   * with `page.maxBytes` only as many as fit in that many bytes of stored data (always at least one),
   * so a replay can read a long run — or a run of a few large events — page by page.
   */
  eventsAfter(runId: string, afterSeq: number, page?: number | EventPage): Promise<StoredEvent[]>;

  close(): Promise<void>;
}

/** A value as stored in a JSON text column (null for absent). @internal */
export const json = (v: unknown): string => JSON.stringify(v ?? null);

/**
 * The values of a `server_runs` row in column order (run_id, thread_id, assistant_id, status,
 * created_at, updated_at, metadata, kwargs, multitask_strategy, owner, attempt, error,
 * pre_checkpoint_id, pre_write_count, cancel), shared by the SQLite and Postgres run stores. @internal
 */
export function runRowValues(run: RunRecord): unknown[] {
  return [
    run.runId,
    run.threadId,
    run.assistantId,
    run.status,
    run.createdAt,
    run.updatedAt,
    json(run.metadata),
    json(run.kwargs),
    run.multitaskStrategy,
    run.owner,
    run.attempt,
    run.error ? json(run.error) : null,
    run.preCheckpointId,
    run.preWriteCount,
    run.cancel,
  ];
}
