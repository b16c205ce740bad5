/**
 * Crons as stored: a schedule, the run to start at each of its ticks, and the next tick. The scheduler
 * claims a tick by moving `nextRunMs` forward with a compare-and-set, so however many schedulers share
 * the store, each tick starts at most one run.
 */

/**
 * What to do with a stateless cron's thread once its run ended (LangGraph's `on_run_completed`).
 *
 * @example
 * const onRunCompleted: OnRunCompleted = "keep"; // keep each tick's thread for inspection
 */
export type OnRunCompleted = "delete" | "keep";

/**
 * One cron. Times are milliseconds since the epoch (UTC).
 *
 * @example
 * const cron: CronRecord | undefined = await crons.get(cronId);
 * if (cron?.enabled) console.log(cron.schedule, cron.timezone, new Date(cron.nextRunMs ?? 0));
 */
export interface CronRecord {
  cronId: string;
  /** The assistant each tick runs. */
  assistantId: string;
  /** The thread each tick runs on; null for a stateless cron (a new thread per tick). */
  threadId: string | null;
  /** The cron's owner (auth on): its runs are started as this user. Null with auth off. */
  userId: string | null;
  /** A 5-field cron expression, read in {@link CronRecord.timezone}. */
  schedule: string;
  /** The IANA time zone the schedule is read in; null: UTC. */
  timezone: string | null;
  /**
   * The run each tick starts, as the Agent Server's run body (snake_case): `input`, `config`, `context`,
   * `metadata`, `interrupt_before`/`interrupt_after`, `multitask_strategy`, `durability`, `webhook`…
   */
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** No tick after this time; null: no end. */
  endTimeMs: number | null;
  /** The next tick; null when there is none (past its end time). */
  nextRunMs: number | null;
  /** Stateless crons only; null for a thread's cron. */
  onRunCompleted: OnRunCompleted | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * Fields a cron's update may change (absent: unchanged).
 *
 * @example
 * const changes: CronChanges = { enabled: false, updatedAt: new Date().toISOString() };
 * await crons.update(cronId, changes);
 */
export type CronChanges = Partial<
  Pick<
    CronRecord,
    "schedule" | "timezone" | "payload" | "metadata" | "endTimeMs" | "nextRunMs" | "onRunCompleted" | "enabled"
  >
> & { updatedAt: string };

/**
 * What a search or count matches.
 *
 * @example
 * const filter: CronFilter = { assistantId: "reports", enabled: true, userId: "ana" };
 * const n = await crons.count(filter);
 */
export interface CronFilter {
  assistantId?: string | undefined;
  threadId?: string | undefined;
  enabled?: boolean | undefined;
  /** Only this user's crons (auth on); undefined: everyone's. */
  userId?: string | undefined;
  /** Top-level metadata keys that must equal these values. */
  metadata?: Record<string, unknown> | undefined;
}

/** The columns a search may sort by (the Agent Server's `sort_by`). */
export const CRON_SORT_COLUMNS = {
  cron_id: "cron_id",
  assistant_id: "assistant_id",
  thread_id: "thread_id",
  created_at: "created_at",
  updated_at: "updated_at",
  next_run_date: "next_run_ms",
} as const;

/**
 * A page of a search.
 *
 * @example
 * const query: CronQuery = { assistantId: "reports", limit: 20, offset: 0, sortBy: "next_run_date", sortOrder: "asc" };
 * const page = await crons.search(query);
 */
export interface CronQuery extends CronFilter {
  limit: number;
  offset: number;
  sortBy: keyof typeof CRON_SORT_COLUMNS;
  sortOrder: "asc" | "desc";
}

/**
 * Where crons live: the server's SQLite file, or its Postgres schema (two implementations, one contract).
 *
 * @example
 * const due = await store.due(clock.now(), 50);
 * for (const cron of due) if (await store.claim(cron.cronId, cron.nextRunMs!, next)) start(cron);
 */
export interface CronStore {
  create(cron: CronRecord): Promise<void>;
  get(cronId: string): Promise<CronRecord | undefined>;
  /** Applies `changes`; the updated cron, or undefined when it does not exist. */
  update(cronId: string, changes: CronChanges): Promise<CronRecord | undefined>;
  /** False when it did not exist. */
  delete(cronId: string): Promise<boolean>;
  search(query: CronQuery): Promise<CronRecord[]>;
  count(filter: CronFilter): Promise<number>;
  /**
   * Enabled crons whose next tick is at or before `nowMs`, taken in turns between owners (each owner's
   * oldest due tick, then each one's second…, oldest first within a turn), so one owner's many crons
   * cannot fill the page ahead of another owner's.
   */
  due(nowMs: number, limit: number): Promise<CronRecord[]>;
  /**
   * Takes the tick `tickMs` of a cron: moves its next tick to `nextMs` if it still is `tickMs` (and the
   * cron is enabled), atomically. True for exactly one caller per tick, and never twice for one tick
   * time: the last tick taken is kept, and a tick at or before it (a next run moved back by an update
   * from a process whose clock is behind) is moved past without a run.
   */
  claim(cronId: string, tickMs: number, nextMs: number | null): Promise<boolean>;
}

/** A stored row's JSON columns, parsed. @internal */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  return typeof text === "string" ? (JSON.parse(text) as T) : (text as T);
}

/** The row of a cron as both stores read it (snake_case columns). @internal */
export function cronOf(r: Record<string, unknown>): CronRecord {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    cronId: r.cron_id as string,
    assistantId: r.assistant_id as string,
    threadId: (r.thread_id as string | null) ?? null,
    userId: (r.user_id as string | null) ?? null,
    schedule: r.schedule as string,
    timezone: (r.timezone as string | null) ?? null,
    payload: parseJson(r.payload, {}),
    metadata: parseJson(r.metadata, {}),
    endTimeMs: num(r.end_ms),
    nextRunMs: num(r.next_run_ms),
    onRunCompleted: (r.on_run_completed as OnRunCompleted | null) ?? null,
    enabled: r.enabled === true || r.enabled === 1,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
  };
}

/** The columns an update sets, in order, with their values. @internal */
export function changedColumns(changes: CronChanges): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [["updated_at", changes.updatedAt]];
  if (changes.schedule !== undefined) out.push(["schedule", changes.schedule]);
  if (changes.timezone !== undefined) out.push(["timezone", changes.timezone]);
  if (changes.payload !== undefined) out.push(["payload", JSON.stringify(changes.payload)]);
  if (changes.metadata !== undefined) out.push(["metadata", JSON.stringify(changes.metadata)]);
  if (changes.endTimeMs !== undefined) out.push(["end_ms", changes.endTimeMs]);
  if (changes.nextRunMs !== undefined) out.push(["next_run_ms", changes.nextRunMs]);
  if (changes.onRunCompleted !== undefined) out.push(["on_run_completed", changes.onRunCompleted]);
  if (changes.enabled !== undefined) out.push(["enabled", changes.enabled]);
  return out;
}

/** The column conditions of a filter (all must hold; metadata is each store's own). @internal */
export function filterColumns(filter: CronFilter): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  if (filter.assistantId !== undefined) out.push(["assistant_id", filter.assistantId]);
  if (filter.threadId !== undefined) out.push(["thread_id", filter.threadId]);
  if (filter.enabled !== undefined) out.push(["enabled", filter.enabled]);
  if (filter.userId !== undefined) out.push(["user_id", filter.userId]);
  return out;
}
