/**
 * Where the embedded store claims a run and fences its attempt: the fair claim, the attempt's start,
 * its events and its end with its thread's status, each one SQLite transaction that refuses a stale
 * attempt; heartbeats, release and the requeue of orphaned runs. One process serves a SQLite file, so
 * a transaction here is never interleaved with another statement.
 */
import { TrellisError } from "@trellis/checkpoint";
import {
  type AttemptEnd,
  type AttemptStart,
  attemptLost,
  type HeartbeatResult,
  json,
  type NewEvent,
  type RequeueResult,
  type RunRecord,
  type ThreadStatus,
} from "../run-store.js";
import { runOf } from "../sql/run-rows.js";
import type { Row } from "../sql/sql-dialect.js";
import { type SqliteConnection, storeNow } from "./sqlite-connection.js";

/** The thread's queued and running runs, oldest first (inside a transaction). */
export function activeRunsNow(c: SqliteConnection, threadId: string): RunRecord[] {
  const rows = c
    .stmt("SELECT * FROM server_runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY seq")
    .all(threadId) as Row[];
  return rows.map(runOf);
}

/** Claims the next run fairly between owners (the oldest claimable run of the owner with the fewest running runs), as `workerId`'s next attempt. @internal */
export function claimNext(c: SqliteConnection, workerId: string): RunRecord | undefined {
  return c.tx(() => {
    // Fair shares: of each owner's oldest claimable run (the oldest pending run of a thread that runs
    // nothing), the one of the owner with the fewest running runs; ties by age. One owner's long queue
    // never holds another owner's run behind it for more than a run's length. The owners with queued
    // runs are read by skipping through the owner index (one seek per owner, not one row per run).
    const row = c
      .stmt(
        `WITH RECURSIVE named(owner) AS (
         SELECT (SELECT owner FROM server_runs INDEXED BY server_runs_owner_pending
           WHERE status = 'pending' AND owner IS NOT NULL ORDER BY owner LIMIT 1)
         UNION ALL
         SELECT (SELECT owner FROM server_runs INDEXED BY server_runs_owner_pending
           WHERE status = 'pending' AND owner > named.owner ORDER BY owner LIMIT 1)
         FROM named WHERE named.owner IS NOT NULL),
       o(owner) AS (
         SELECT owner FROM named WHERE owner IS NOT NULL
         UNION ALL
         SELECT NULL WHERE EXISTS (SELECT 1 FROM server_runs INDEXED BY server_runs_owner_pending
           WHERE status = 'pending' AND owner IS NULL))
       SELECT r.* FROM o
       JOIN server_runs r ON r.seq = (
         SELECT p.seq FROM server_runs p WHERE p.status = 'pending' AND p.owner IS o.owner
           AND NOT EXISTS (SELECT 1 FROM server_runs x WHERE x.thread_id = p.thread_id AND x.status = 'running')
           AND NOT EXISTS (SELECT 1 FROM server_runs y INDEXED BY server_runs_thread WHERE y.thread_id = p.thread_id AND y.seq < p.seq AND y.status = 'pending')
         ORDER BY p.seq LIMIT 1)
       ORDER BY (SELECT COUNT(*) FROM server_runs b WHERE b.status = 'running' AND b.owner IS o.owner), r.seq
       LIMIT 1`,
      )
      .get() as Row | undefined;
    if (!row) return undefined;
    const now = new Date().toISOString();
    c.stmt(
      "UPDATE server_runs SET status = 'running', attempt = attempt + 1, updated_at = ?, worker_id = ?, heartbeat_at = ? WHERE run_id = ?",
    ).run(now, workerId, Date.now(), row.run_id);
    return runOf({ ...row, status: "running", attempt: Number(row.attempt) + 1, updated_at: now });
  });
}

/** Refuses the write unless the run is running under `attempt`. @internal */
export function fence(c: SqliteConnection, runId: string, attempt: number): void {
  const row = c.stmt("SELECT attempt, status FROM server_runs WHERE run_id = ?").get(runId) as
    | { attempt: number; status: string }
    | undefined;
  if (!row || row.attempt !== attempt || row.status !== "running") throw attemptLost(runId, attempt);
}

/** Appends `events` to the run's stream, numbered after its last one. @internal */
export function append(c: SqliteConnection, runId: string, events: NewEvent[]): number[] {
  if (events.length === 0) return [];
  const row = c
    .stmt("UPDATE server_runs SET last_seq = last_seq + ? WHERE run_id = ? RETURNING last_seq")
    .get(events.length, runId) as { last_seq: number } | undefined;
  if (!row) throw new TrellisError("NOT_FOUND", `No run ${runId}.`);
  const first = row.last_seq - events.length + 1;
  const insert = c.stmt("INSERT INTO server_run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)");
  return events.map((e, i) => {
    insert.run(runId, first + i, e.event, json(e.data));
    return first + i;
  });
}

/** Records a claimed attempt's start (the pre-run head, kept from the first attempt), its thread busy under the run's graph, and its first events; refused for a stale attempt. @internal */
export function beginAttempt(
  c: SqliteConnection,
  runId: string,
  attempt: number,
  start: AttemptStart,
): { seqs: number[]; preCheckpointId: string | null; preWriteCount: number } {
  return c.tx(() => {
    fence(c, runId, attempt);
    const now = new Date().toISOString();
    const run = c
      .stmt(
        `UPDATE server_runs SET updated_at = ?,
         pre_checkpoint_id = CASE WHEN pre_recorded = 1 THEN pre_checkpoint_id ELSE ? END,
         pre_write_count = CASE WHEN pre_recorded = 1 THEN pre_write_count ELSE ? END,
         pre_recorded = 1
       WHERE run_id = ? RETURNING thread_id, pre_checkpoint_id, pre_write_count`,
      )
      .get(now, start.preCheckpointId, start.preWriteCount, runId) as {
      thread_id: string;
      pre_checkpoint_id: string | null;
      pre_write_count: number;
    };
    c.stmt("UPDATE server_threads SET status = 'busy', graph_id = ?, updated_at = ? WHERE thread_id = ?").run(
      start.graphId,
      now,
      run.thread_id,
    );
    const seqs = append(c, runId, start.events);
    return { seqs, preCheckpointId: run.pre_checkpoint_id, preWriteCount: run.pre_write_count };
  });
}

/** Appends an attempt's events; refused for a stale attempt. @internal */
export function appendEvents(c: SqliteConnection, runId: string, attempt: number, events: NewEvent[]): number[] {
  return c.tx(() => {
    fence(c, runId, attempt);
    return append(c, runId, events);
  });
}

/** Ends an attempt's run with its last events and its thread's status, in one step; refused for a stale attempt. @internal */
export function finishRun(c: SqliteConnection, runId: string, attempt: number, end: AttemptEnd): number[] {
  return c.tx(() => {
    fence(c, runId, attempt);
    const seqs = append(c, runId, end.events);
    const now = new Date().toISOString();
    const { thread_id } = c
      .stmt(
        "UPDATE server_runs SET status = ?, error = ?, updated_at = ?, worker_id = NULL, metadata = COALESCE(?, metadata) WHERE run_id = ? RETURNING thread_id",
      )
      .get(end.status, end.error ? json(end.error) : null, now, end.metadata ? json(end.metadata) : null, runId) as {
      thread_id: string;
    };
    settle(c, thread_id, end.threadStatus, now);
    if (end.stateChanged !== false) {
      c.stmt("UPDATE server_threads SET state_changed_at = ? WHERE thread_id = ?").run(storeNow(), thread_id);
    }
    return seqs;
  });
}

/** Sets the thread's status after a run: `busy` while another run is queued or running. @internal */
export function settle(c: SqliteConnection, threadId: string, outcome: ThreadStatus, now: string): void {
  const busy = activeRunsNow(c, threadId).length > 0;
  c.stmt("UPDATE server_threads SET status = ?, updated_at = ? WHERE thread_id = ?").run(
    busy ? "busy" : outcome,
    now,
    threadId,
  );
}

/** Puts a run its attempt still holds back in the queue. @internal */
export function releaseRun(c: SqliteConnection, runId: string, attempt: number): boolean {
  const release = c.stmt(
    "UPDATE server_runs SET status = 'pending', worker_id = NULL, updated_at = ? WHERE run_id = ? AND attempt = ? AND status = 'running'",
  );
  return c.quick(() => release.run(new Date().toISOString(), runId, attempt).changes > 0);
}

/** Renews a worker's runs; answers which to stop and which it lost. @internal */
export function heartbeat(
  c: SqliteConnection,
  workerId: string,
  runs: Array<{ runId: string; attempt: number }>,
): HeartbeatResult {
  if (runs.length === 0) return { stops: [], lost: [] };
  return c.tx(() => {
    const out: HeartbeatResult = { stops: [], lost: [] };
    const now = Date.now();
    for (const { runId, attempt } of runs) {
      const row = c
        .stmt(
          "UPDATE server_runs SET heartbeat_at = ? WHERE run_id = ? AND attempt = ? AND worker_id = ? AND status = 'running' RETURNING cancel",
        )
        .get(now, runId, attempt, workerId) as { cancel: string | null } | undefined;
      if (!row) out.lost.push(runId);
      else if (row.cancel) out.stops.push({ runId, cancel: row.cancel as RunRecord["cancel"] });
    }
    return out;
  });
}

/** Puts running runs whose worker went silent back in the queue, and repairs threads left busy. @internal */
export function requeueOrphans(c: SqliteConnection, staleMs?: number): RequeueResult {
  return c.tx(() => {
    const now = Date.now();
    const rows = (
      staleMs === undefined
        ? c
            .stmt(
              "UPDATE server_runs SET status = 'pending', worker_id = NULL WHERE status = 'running' RETURNING run_id, thread_id, attempt, worker_id",
            )
            .all()
        : c
            .stmt(
              `UPDATE server_runs SET status = 'pending', worker_id = NULL
             WHERE status = 'running' AND (heartbeat_at IS NULL OR heartbeat_at <= ?)
             RETURNING run_id, thread_id, attempt, worker_id`,
            )
            .all(now - staleMs)
    ) as Array<{ run_id: string; thread_id: string; attempt: number; worker_id: string | null }>;
    // a thread whose run ended without its status change (a process that died in between, before
    // the two were one transaction) takes its last run's outcome
    const cutoff = new Date(now - (staleMs ?? 0)).toISOString();
    const repaired = c
      .stmt(
        `UPDATE server_threads SET updated_at = ?, status = COALESCE((
         SELECT CASE r.status WHEN 'interrupted' THEN 'interrupted' WHEN 'error' THEN 'error' WHEN 'timeout' THEN 'error' ELSE 'idle' END
         FROM server_runs r WHERE r.thread_id = server_threads.thread_id ORDER BY r.seq DESC LIMIT 1), 'idle')
       WHERE status = 'busy' AND updated_at <= ?
         AND NOT EXISTS (SELECT 1 FROM server_runs a WHERE a.thread_id = server_threads.thread_id AND a.status IN ('pending', 'running'))
       RETURNING thread_id`,
      )
      .all(new Date(now).toISOString(), cutoff) as Array<{ thread_id: string }>;
    return {
      runs: rows.map((r) => ({ runId: r.run_id, threadId: r.thread_id, attempt: r.attempt, workerId: r.worker_id })),
      repairedThreads: repaired.map((r) => r.thread_id),
    };
  });
}

/** Appends one event outside any attempt. @internal */
export function appendEvent(c: SqliteConnection, runId: string, event: string, data: unknown): number {
  return c.tx(() => append(c, runId, [{ event, data }])[0] as number);
}
