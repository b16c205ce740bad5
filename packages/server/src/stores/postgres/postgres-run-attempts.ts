/**
 * Where the scale-out store claims a run and fences its attempt: the fair claim (one statement, `FOR
 * UPDATE SKIP LOCKED`), the attempt's start, its events and its end with its thread's status (each one
 * statement or one function call that refuses a stale attempt), heartbeats, release and the requeue of
 * orphaned runs. No lock is held across a round trip.
 */
import { TrellisError } from "@trellis/checkpoint";
import type pg from "pg";
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
import { NOW_MS, NOW_MS_EXACT, type PostgresConnection, QUICK_COMMIT } from "./postgres-connection.js";

/** Claimable runs of each owner a claim ranks (so claims at once by many workers find one each). */
const CLAIM_CANDIDATES = 16;

/** Claims the next run fairly between owners (the oldest claimable run of the owner with the fewest running runs), as `workerId`'s next attempt. @internal */
export async function claimNext(db: PostgresConnection, workerId: string): Promise<RunRecord | undefined> {
  await db.setup();
  // One statement, no lock held past it. Fair shares: each owner's first claimable runs (the oldest
  // pending run of a thread that runs nothing) rank by the owner's running runs plus their place in the
  // owner's queue, ties by age; rows another claim holds are skipped. The owners with queued runs are
  // read by skipping through the owner index (one seek per owner, not one row per run). Two claims of one thread's runs at
  // once: the unique index on running runs lets one win; the other tries again.
  for (let tries = 0; ; tries++) {
    try {
      const { rows } = await db.pool.query(
        `WITH RECURSIVE d(k) AS (
           (SELECT COALESCE(owner, '') FROM ${db.s}.server_runs WHERE status = 'pending'
             ORDER BY COALESCE(owner, '') LIMIT 1)
           UNION ALL
           SELECT (SELECT COALESCE(owner, '') FROM ${db.s}.server_runs
             WHERE status = 'pending' AND COALESCE(owner, '') > d.k ORDER BY COALESCE(owner, '') LIMIT 1)
           FROM d WHERE d.k IS NOT NULL),
         o AS MATERIALIZED (
           SELECT d.k, (SELECT COUNT(*) FROM ${db.s}.server_runs b
             WHERE b.status = 'running' AND COALESCE(b.owner, '') = d.k) AS busy
           FROM d WHERE d.k IS NOT NULL),
         cand AS (
           SELECT q.seq, q.n + o.busy AS prio
           FROM o CROSS JOIN LATERAL (
             SELECT f.seq, ROW_NUMBER() OVER (ORDER BY f.seq) AS n FROM (
               SELECT p.seq FROM ${db.s}.server_runs p
               WHERE p.status = 'pending' AND COALESCE(p.owner, '') = o.k
                 AND NOT EXISTS (SELECT 1 FROM ${db.s}.server_runs x WHERE x.thread_id = p.thread_id AND x.status = 'running')
                 AND NOT EXISTS (SELECT 1 FROM ${db.s}.server_runs y WHERE y.thread_id = p.thread_id AND y.status = 'pending' AND y.seq < p.seq)
               ORDER BY p.seq LIMIT ${CLAIM_CANDIDATES}) f) q),
         c AS (
           SELECT r.run_id FROM ${db.s}.server_runs r JOIN cand ON r.seq = cand.seq
           WHERE r.status = 'pending' ORDER BY cand.prio, cand.seq LIMIT 1 FOR UPDATE OF r SKIP LOCKED)
         UPDATE ${db.s}.server_runs u SET status = 'running', attempt = u.attempt + 1, updated_at = $1, worker_id = $2,
           heartbeat_at = ${NOW_MS}
         FROM c WHERE u.run_id = c.run_id AND u.status = 'pending'
         RETURNING u.*, ${QUICK_COMMIT} AS quick_commit`,
        [new Date().toISOString(), workerId],
      );
      const row = rows[0] as Row | undefined;
      return row ? runOf(row) : undefined;
    } catch (error) {
      if ((error as { code?: string }).code !== "23505" || tries >= 5) throw error;
    }
  }
}

/**
 * One statement that appends `events` to the run's stream only while `attempt` runs it: the run row's
 * `last_seq` is raised under its row lock in the same statement, so numbers never collide or skip.
 */
export async function append(
  db: PostgresConnection,
  q: pg.Pool | pg.PoolClient,
  runId: string,
  attempt: number | null,
  events: NewEvent[],
) {
  const { rows } = await q.query(
    `WITH r AS (
       UPDATE ${db.s}.server_runs SET last_seq = last_seq + $2
       WHERE run_id = $1 AND ($3::int IS NULL OR (attempt = $3 AND status = 'running'))
       RETURNING last_seq)
     INSERT INTO ${db.s}.server_run_events (run_id, seq, event, data)
     SELECT $1, r.last_seq - $2 + e.n, e.event, e.data
     FROM r, unnest($4::text[], $5::text[]) WITH ORDINALITY AS e(event, data, n)
     RETURNING seq, ${QUICK_COMMIT}`,
    [runId, events.length, attempt, events.map((e) => e.event), events.map((e) => json(e.data))],
  );
  if (rows.length !== events.length) {
    throw attempt === null ? new TrellisError("NOT_FOUND", `No run ${runId}.`) : attemptLost(runId, attempt);
  }
  return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
}

/** Records a claimed attempt's start (the pre-run head, kept from the first attempt), its thread busy under the run's graph, and its first events; refused for a stale attempt. @internal */
export async function beginAttempt(
  db: PostgresConnection,
  runId: string,
  attempt: number,
  start: AttemptStart,
): Promise<{ seqs: number[]; preCheckpointId: string | null; preWriteCount: number }> {
  await db.setup();
  // one statement: fenced run update, thread busy under the run's graph, first events
  const { rows } = await db.pool.query(
    `WITH r AS (
       UPDATE ${db.s}.server_runs SET updated_at = $3, last_seq = last_seq + $6,
         pre_checkpoint_id = CASE WHEN pre_recorded THEN pre_checkpoint_id ELSE $4 END,
         pre_write_count = CASE WHEN pre_recorded THEN pre_write_count ELSE $5 END,
         pre_recorded = TRUE
       WHERE run_id = $1 AND attempt = $2 AND status = 'running'
       RETURNING thread_id, last_seq, pre_checkpoint_id, pre_write_count),
     t AS (
       UPDATE ${db.s}.server_threads SET status = 'busy', graph_id = $7, updated_at = $3
       WHERE thread_id = (SELECT thread_id FROM r) RETURNING 1),
     e AS (
       INSERT INTO ${db.s}.server_run_events (run_id, seq, event, data)
       SELECT $1, r.last_seq - $6 + x.n, x.event, x.data
       FROM r, unnest($8::text[], $9::text[]) WITH ORDINALITY AS x(event, data, n)
       RETURNING seq)
     SELECT (SELECT COUNT(*) FROM r) AS owned, (SELECT COUNT(*) FROM t) AS threads,
       (SELECT pre_checkpoint_id FROM r) AS pre_checkpoint_id, (SELECT pre_write_count FROM r) AS pre_write_count,
       COALESCE(array_agg(e.seq), '{}') AS seqs, ${QUICK_COMMIT} AS quick_commit FROM e`,
    [
      runId,
      attempt,
      new Date().toISOString(),
      start.preCheckpointId,
      start.preWriteCount,
      start.events.length,
      start.graphId,
      start.events.map((e) => e.event),
      start.events.map((e) => json(e.data)),
    ],
  );
  const row = rows[0] as Row;
  if (Number(row.owned) !== 1) throw attemptLost(runId, attempt);
  return {
    seqs: (row.seqs as Array<number | string>).map(Number).sort((a, b) => a - b),
    preCheckpointId: (row.pre_checkpoint_id as string | null) ?? null,
    preWriteCount: Number(row.pre_write_count),
  };
}

/** Appends an attempt's events; refused for a stale attempt. @internal */
export async function appendEvents(
  db: PostgresConnection,
  runId: string,
  attempt: number,
  events: NewEvent[],
): Promise<number[]> {
  if (events.length === 0) return [];
  await db.setup();
  return append(db, db.pool, runId, attempt, events);
}

/** Ends an attempt's run with its last events and its thread's status, in one step; refused for a stale attempt. @internal */
export async function finishRun(
  db: PostgresConnection,
  runId: string,
  attempt: number,
  end: AttemptEnd,
): Promise<number[]> {
  // the metadata (usage, timeline) before the end, so a client that sees the end sees it; a write of
  // its own, only while the attempt still owns the running run (server_finish_run takes no metadata)
  if (end.metadata) {
    await db.q(
      `UPDATE ${db.s}.server_runs SET metadata = $3 WHERE run_id = $1 AND attempt = $2 AND status = 'running'
       RETURNING ${QUICK_COMMIT}`,
      [runId, attempt, json(end.metadata)],
    );
  }
  if (end.stateChanged !== false) {
    // before the end (its own statement): whoever sees the run ended sees the change, and a stamp of
    // an attempt that turns out stale only makes a later plain resume refuse where it could bind
    await db.q(
      `UPDATE ${db.s}.server_threads SET state_changed_at = ${NOW_MS_EXACT}
       WHERE thread_id = (SELECT thread_id FROM ${db.s}.server_runs WHERE run_id = $1 AND attempt = $2 AND status = 'running')
       RETURNING ${QUICK_COMMIT}`,
      [runId, attempt],
    );
  }
  const [row] = await db.q(
    `SELECT ${db.s}.server_finish_run($1, $2, $3, $4, $5, $6, $7, $8) AS seqs, ${QUICK_COMMIT} AS quick_commit`,
    [
      runId,
      attempt,
      end.status,
      end.error ? json(end.error) : null,
      new Date().toISOString(),
      end.threadStatus,
      end.events.map((e) => e.event),
      end.events.map((e) => json(e.data)),
    ],
  );
  const seqs = row?.seqs as Array<number | string> | null;
  if (!seqs) throw attemptLost(runId, attempt);
  return seqs.map(Number);
}

/** Sets the thread's status after a run: `busy` while another run is queued or running. @internal */
export async function settle(
  db: PostgresConnection,
  c: pg.PoolClient,
  threadId: string,
  outcome: ThreadStatus,
  now: string,
): Promise<void> {
  await c.query(
    `UPDATE ${db.s}.server_threads SET updated_at = $3, status = CASE WHEN EXISTS (
       SELECT 1 FROM ${db.s}.server_runs a WHERE a.thread_id = $1 AND a.status IN ('pending', 'running'))
       THEN 'busy' ELSE $2 END
     WHERE thread_id = $1`,
    [threadId, outcome, now],
  );
}

/** Puts a run its attempt still holds back in the queue. @internal */
export async function releaseRun(db: PostgresConnection, runId: string, attempt: number): Promise<boolean> {
  const rows = await db.q(
    `UPDATE ${db.s}.server_runs SET status = 'pending', worker_id = NULL, updated_at = $3
     WHERE run_id = $1 AND attempt = $2 AND status = 'running' RETURNING ${QUICK_COMMIT}`,
    [runId, attempt, new Date().toISOString()],
  );
  return rows.length > 0;
}

/** Renews a worker's runs; answers which to stop and which it lost. @internal */
export async function heartbeat(
  db: PostgresConnection,
  workerId: string,
  runs: Array<{ runId: string; attempt: number }>,
): Promise<HeartbeatResult> {
  if (runs.length === 0) return { stops: [], lost: [] };
  const rows = await db.q(
    `UPDATE ${db.s}.server_runs u SET heartbeat_at = ${NOW_MS}
     FROM unnest($1::text[], $2::int[]) AS h(run_id, attempt)
     WHERE u.run_id = h.run_id AND u.attempt = h.attempt AND u.worker_id = $3 AND u.status = 'running'
     RETURNING u.run_id, u.cancel, ${QUICK_COMMIT}`,
    [runs.map((r) => r.runId), runs.map((r) => r.attempt), workerId],
  );
  const owned = new Set(rows.map((r) => r.run_id as string));
  return {
    stops: rows
      .filter((r) => r.cancel)
      .map((r) => ({ runId: r.run_id as string, cancel: r.cancel as RunRecord["cancel"] })),
    lost: runs.filter((r) => !owned.has(r.runId)).map((r) => r.runId),
  };
}

/** Puts running runs whose worker went silent back in the queue, and repairs threads left busy. @internal */
export async function requeueOrphans(db: PostgresConnection, staleMs?: number): Promise<RequeueResult> {
  const rows = await db.q(
    `UPDATE ${db.s}.server_runs SET status = 'pending', worker_id = NULL
     WHERE status = 'running' AND ($1::bigint IS NULL OR heartbeat_at IS NULL OR heartbeat_at <= ${NOW_MS} - $1::bigint)
     RETURNING run_id, thread_id, attempt, worker_id, ${QUICK_COMMIT}`,
    [staleMs ?? null],
  );
  // a thread whose run ended without its status change (a process that died in between, before the
  // two were one transaction) takes its last run's outcome; recent changes are left to their writer
  const cutoff = new Date(Date.now() - (staleMs ?? 0)).toISOString();
  const repaired = await db.q(
    `UPDATE ${db.s}.server_threads t SET updated_at = $2, status = COALESCE((
       SELECT CASE r.status WHEN 'interrupted' THEN 'interrupted' WHEN 'error' THEN 'error' WHEN 'timeout' THEN 'error' ELSE 'idle' END
       FROM ${db.s}.server_runs r WHERE r.thread_id = t.thread_id ORDER BY r.seq DESC LIMIT 1), 'idle')
     WHERE t.status = 'busy' AND t.updated_at <= $1
       AND NOT EXISTS (SELECT 1 FROM ${db.s}.server_runs a WHERE a.thread_id = t.thread_id AND a.status IN ('pending', 'running'))
     RETURNING t.thread_id, ${QUICK_COMMIT}`,
    [cutoff, new Date().toISOString()],
  );
  return {
    runs: rows.map((r) => ({
      runId: r.run_id as string,
      threadId: r.thread_id as string,
      attempt: Number(r.attempt),
      workerId: (r.worker_id as string | null) ?? null,
    })),
    repairedThreads: repaired.map((r) => r.thread_id as string),
  };
}

/** Appends one event outside any attempt. @internal */
export async function appendEvent(
  db: PostgresConnection,
  runId: string,
  event: string,
  data: unknown,
): Promise<number> {
  await db.setup();
  return (await append(db, db.pool, runId, null, [{ event, data }]))[0] as number;
}
