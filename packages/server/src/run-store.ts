/** A run's lifecycle, as LangGraph's Agent Server names it. */
export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
/** A thread's status: `busy` while a run is queued or running on it. */
export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";
/** What to do with a new run when the thread already has one. */
export type MultitaskStrategy = "reject" | "interrupt" | "rollback" | "enqueue";
/** How a cancelled run leaves its thread: `interrupt` keeps its progress, `rollback` removes it. */
export type CancelAction = "interrupt" | "rollback";

/** Statuses after which a run never changes again. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(["error", "success", "timeout", "interrupted"]);

/** A thread as the server stores it (its state lives in the checkpoint saver). */
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

/** What a run was asked to do: the parts of the create request the worker needs. */
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
}

/** A run as the server stores it. */
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
  error: { error: string; message: string } | null;
  /** The thread's latest checkpoint when the run first started, and how many pending writes it had. */
  preCheckpointId: string | null;
  preWriteCount: number;
  /**
   * A stop asked for while the run was queued or running: a cancel (`interrupt`, `rollback`) or a
   * multitask `drain` (stop at the next step boundary). Workers in other processes read it.
   */
  cancel: CancelAction | "drain" | null;
}

/** One event of a run's stream, numbered from 1. */
export interface StoredEvent {
  seq: number;
  event: string;
  data: unknown;
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
 * const run = await store.claimNext("worker-1"); // oldest pending run whose thread is free
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
   * Inserts a pending run, applying `strategy` against the thread's active runs in the same
   * transaction: `reject` throws CONFLICT, `enqueue` queues behind them, `interrupt`/`rollback` drop the
   * queued ones and return the running one.
   */
  enqueueRun(run: RunRecord, strategy: MultitaskStrategy): Promise<EnqueueResult>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]>;
  updateRun(
    runId: string,
    patch: Partial<Pick<RunRecord, "status" | "error" | "preCheckpointId" | "preWriteCount" | "cancel">>,
  ): Promise<void>;
  deleteRun(runId: string): Promise<void>;
  /** Pending or running runs of a thread, oldest first. */
  activeRuns(threadId: string): Promise<RunRecord[]>;
  /** Marks the oldest claimable pending run running for `workerId` (attempt + 1) and returns it. */
  claimNext(workerId: string): Promise<RunRecord | undefined>;
  /**
   * Records that `workerId` is still executing `runIds`; returns the stops asked for them meanwhile
   * (by another process).
   */
  heartbeat(workerId: string, runIds: string[]): Promise<Array<{ runId: string; cancel: RunRecord["cancel"] }>>;
  /**
   * Puts runs left `running` by a process that died back in the queue; returns how many. With
   * `staleMs`, only runs whose worker has not sent a heartbeat for that long (several processes share
   * the store); without, every running run (the only process has just started).
   */
  requeueOrphans(staleMs?: number): Promise<number>;

  /** Appends an event to the run's stream; returns its number. */
  appendEvent(runId: string, event: string, data: unknown): Promise<number>;
  /** The run's events numbered above `afterSeq`, in order. */
  eventsAfter(runId: string, afterSeq: number): Promise<StoredEvent[]>;

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
