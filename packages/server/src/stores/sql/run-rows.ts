/**
 * Thread and run rows as both SQL run stores keep them, read back into records: JSON columns arrive as
 * text (or as objects from a Postgres `jsonb` column), counters as numbers or numeric strings.
 */
import type { MultitaskStrategy, RunRecord, RunStatus, ThreadRecord } from "../run-store.js";
import type { Row } from "./sql-dialect.js";

/** A JSON column's value: parsed from text, taken as is when the driver parsed it. */
export function jsonColumn<T>(value: unknown): T {
  if (value === null || value === undefined) return null as T;
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/**
 * A `server_threads` row as a {@link ThreadRecord}.
 *
 * @example
 * const thread = threadOf({ thread_id: "t1", metadata: "{}", status: "idle", ... });
 */
export function threadOf(r: Row): ThreadRecord {
  return {
    threadId: r.thread_id as string,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    metadata: jsonColumn<Record<string, unknown> | null>(r.metadata) ?? {},
    status: r.status as ThreadRecord["status"],
    owner: (r.owner as string | null) ?? null,
    graphId: (r.graph_id as string | null) ?? null,
    error: jsonColumn(r.error),
  };
}

/**
 * A `server_runs` row as a {@link RunRecord}.
 *
 * @example
 * const run = runOf(row);
 */
export function runOf(r: Row): RunRecord {
  return {
    runId: r.run_id as string,
    threadId: r.thread_id as string,
    assistantId: r.assistant_id as string,
    status: r.status as RunStatus,
    createdAt: r.created_at as string,
    updatedAt: r.updated_at as string,
    metadata: jsonColumn<Record<string, unknown> | null>(r.metadata) ?? {},
    kwargs: jsonColumn(r.kwargs),
    multitaskStrategy: r.multitask_strategy as MultitaskStrategy,
    owner: (r.owner as string | null) ?? null,
    attempt: Number(r.attempt),
    error: jsonColumn(r.error),
    preCheckpointId: (r.pre_checkpoint_id as string | null) ?? null,
    preWriteCount: Number(r.pre_write_count),
    cancel: (r.cancel as RunRecord["cancel"]) ?? null,
  };
}
