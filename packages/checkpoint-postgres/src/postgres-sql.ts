/**
 * The SQL of {@link PostgresSaver} for one (quoted) schema. Every statement is sent unnamed, with
 * parameters, so it works through PgBouncer in transaction pooling mode.
 * @internal
 */
export function postgresSql(s: string) {
  const threadColumns = "ttl_ms, touched_at, lease_owner, lease_epoch, lease_expires_at";
  return {
    /** Creates the thread's row if needed and locks it for the transaction; returns it as it was. */
    lockOrCreateThread: `INSERT INTO ${s}.threads (thread_id, touched_at) VALUES ($1, $2)
      ON CONFLICT (thread_id) DO UPDATE SET touched_at = ${s}.threads.touched_at
      RETURNING ${threadColumns}`,
    lockThread: `SELECT ${threadColumns} FROM ${s}.threads WHERE thread_id = $1 FOR UPDATE`,
    /** Drops an expired thread's data and gives it a fresh row (the thread starts afresh). */
    resetThread: `WITH w AS (DELETE FROM ${s}.writes WHERE thread_id = $1),
        b AS (DELETE FROM ${s}.blobs WHERE thread_id = $1),
        v AS (DELETE FROM ${s}.bodies WHERE thread_id = $1),
        c AS (DELETE FROM ${s}.checkpoints WHERE thread_id = $1)
      UPDATE ${s}.threads SET ttl_ms = NULL, touched_at = $2, lease_owner = NULL, lease_epoch = 0, lease_expires_at = 0
      WHERE thread_id = $1`,
    deleteThread: `WITH w AS (DELETE FROM ${s}.writes WHERE thread_id = $1),
        b AS (DELETE FROM ${s}.blobs WHERE thread_id = $1),
        v AS (DELETE FROM ${s}.bodies WHERE thread_id = $1),
        c AS (DELETE FROM ${s}.checkpoints WHERE thread_id = $1)
      DELETE FROM ${s}.threads WHERE thread_id = $1`,
    /** Deletes an expired thread; does nothing if a put refreshed it meanwhile. */
    deleteIfExpired: `WITH gone AS (
        DELETE FROM ${s}.threads WHERE thread_id = $1 AND ttl_ms IS NOT NULL AND touched_at + ttl_ms <= $2
        RETURNING thread_id),
        w AS (DELETE FROM ${s}.writes WHERE thread_id IN (SELECT thread_id FROM gone)),
        b AS (DELETE FROM ${s}.blobs WHERE thread_id IN (SELECT thread_id FROM gone)),
        v AS (DELETE FROM ${s}.bodies WHERE thread_id IN (SELECT thread_id FROM gone))
      DELETE FROM ${s}.checkpoints WHERE thread_id IN (SELECT thread_id FROM gone)`,
    sweep: `WITH gone AS (
        DELETE FROM ${s}.threads WHERE ttl_ms IS NOT NULL AND touched_at + ttl_ms <= $1 RETURNING thread_id),
        w AS (DELETE FROM ${s}.writes WHERE thread_id IN (SELECT thread_id FROM gone)),
        b AS (DELETE FROM ${s}.blobs WHERE thread_id IN (SELECT thread_id FROM gone)),
        v AS (DELETE FROM ${s}.bodies WHERE thread_id IN (SELECT thread_id FROM gone)),
        c AS (DELETE FROM ${s}.checkpoints WHERE thread_id IN (SELECT thread_id FROM gone))
      SELECT count(*)::int AS n FROM gone`,
    setTtl: `UPDATE ${s}.threads SET ttl_ms = $2, touched_at = $3 WHERE thread_id = $1`,
    setLease: `UPDATE ${s}.threads SET lease_owner = $2, lease_epoch = $3, lease_expires_at = $4 WHERE thread_id = $1`,
    releaseLease: `UPDATE ${s}.threads SET lease_expires_at = 0
      WHERE thread_id = $1 AND lease_owner = $2 AND lease_epoch = $3`,

    /** The thread (for expiry) and its latest checkpoint, or the one named by $3. */
    head: `SELECT t.ttl_ms, t.touched_at, c.id, c.body, c.sum FROM ${s}.threads AS t
      LEFT JOIN LATERAL (
        SELECT id, body, sum FROM ${s}.checkpoints
        WHERE thread_id = t.thread_id AND ns = $2 AND ($3::text IS NULL OR id = $3)
        ORDER BY id DESC LIMIT 1
      ) AS c ON true
      WHERE t.thread_id = $1`,
    checkpointExists: `SELECT 1 FROM ${s}.checkpoints WHERE thread_id = $1 AND ns = $2 AND id = $3`,
    page: `SELECT id, body, sum FROM ${s}.checkpoints
      WHERE thread_id = $1 AND ns = $2 AND ($3::text IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    /**
     * Every channel's delta chain (from the versions in $4, a JSON object) and the checkpoint's
     * pending writes, in one query: rows tagged 'b' (blob links, newest first per channel) and 'w'.
     */
    valuesAndWrites: `WITH RECURSIVE chain (channel, version, kind, base, body, sum, ref, depth) AS (
        SELECT b.channel, b.version, b.kind, b.base, b.body, b.sum, b.ref, 0
          FROM jsonb_each_text($4::jsonb) AS j
          JOIN ${s}.blobs AS b ON b.thread_id = $1 AND b.ns = $2 AND b.channel = j.key AND b.version = j.value
        UNION ALL
        SELECT b.channel, b.version, b.kind, b.base, b.body, b.sum, b.ref, c.depth + 1
          FROM chain AS c
          JOIN ${s}.blobs AS b ON b.thread_id = $1 AND b.ns = $2 AND b.channel = c.channel AND b.version = c.base
         WHERE c.kind = 'delta' AND c.depth < 1000000
      )
      SELECT u.tag, u.k1, u.k2, u.kind, u.base, u.sum, u.ord,
          CASE WHEN u.ref IS NULL THEN u.body ELSE v.body END AS body
        FROM (
          SELECT 'b' AS tag, channel AS k1, version AS k2, kind, base, body, sum, ref, depth::bigint AS ord FROM chain
          UNION ALL
          SELECT 'w', task_id, channel, NULL, NULL, body, sum, ref, seq FROM ${s}.writes
            WHERE thread_id = $1 AND ns = $2 AND checkpoint_id = $3
        ) AS u
        LEFT JOIN ${s}.bodies AS v ON u.ref IS NOT NULL AND v.thread_id = $1 AND v.ref = u.ref
      ORDER BY u.tag, CASE WHEN u.tag = 'b' THEN u.k1 END, u.ord`,

    /**
     * The whole put after the lease check, in one statement: checkpoint, blobs (arrays $6–$12) and
     * writes (arrays $13–$17) upserted, the thread's clock touched ($18), long bodies stored once
     * (arrays $19–$20). A write keeps its first position.
     */
    put: `WITH cp AS (
        INSERT INTO ${s}.checkpoints (thread_id, ns, id, body, sum) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (thread_id, ns, id) DO UPDATE SET body = EXCLUDED.body, sum = EXCLUDED.sum),
      bl AS (
        INSERT INTO ${s}.blobs (thread_id, ns, channel, version, kind, base, body, sum, ref)
        SELECT $1, $2, x.channel, x.version, x.kind, x.base, x.body, x.sum, x.ref
          FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
            AS x (channel, version, kind, base, body, sum, ref)
        ON CONFLICT (thread_id, ns, channel, version)
        DO UPDATE SET kind = EXCLUDED.kind, base = EXCLUDED.base, body = EXCLUDED.body, sum = EXCLUDED.sum,
          ref = EXCLUDED.ref),
      wr AS (${upsertWrites(s, "$3", 13)}),
      bo AS (${insertBodies(s, 19)})
      UPDATE ${s}.threads SET touched_at = $18 WHERE thread_id = $1`,
    putWrites: `WITH wr AS (${upsertWrites(s, "$3", 4)}), bo AS (${insertBodies(s, 10)})
      UPDATE ${s}.threads SET touched_at = $9 WHERE thread_id = $1`,
    /** Drops the thread's bodies no blob or write refers to any more. */
    pruneBodies: `DELETE FROM ${s}.bodies AS v WHERE v.thread_id = $1
      AND NOT EXISTS (SELECT 1 FROM ${s}.blobs AS b WHERE b.thread_id = $1 AND b.ref = v.ref)
      AND NOT EXISTS (SELECT 1 FROM ${s}.writes AS w WHERE w.thread_id = $1 AND w.ref = v.ref)`,

    /** Deletes all but the newest $2 checkpoints of every namespace, and the writes of the deleted. */
    pruneCheckpoints: `WITH ranked AS (
        SELECT ns, id, row_number() OVER (PARTITION BY ns ORDER BY id DESC) AS rn
        FROM ${s}.checkpoints WHERE thread_id = $1),
      gone AS (
        DELETE FROM ${s}.checkpoints AS c USING ranked AS r
        WHERE c.thread_id = $1 AND c.ns = r.ns AND c.id = r.id AND r.rn > $2
        RETURNING c.ns, c.id)
      DELETE FROM ${s}.writes AS w USING gone AS g
      WHERE w.thread_id = $1 AND w.ns = g.ns AND w.checkpoint_id = g.id`,
    checkpointBodies: `SELECT ns, id, body, sum FROM ${s}.checkpoints WHERE thread_id = $1`,
    blobLinks: `SELECT ns, channel, version, base FROM ${s}.blobs WHERE thread_id = $1`,
    deleteBlobs: `DELETE FROM ${s}.blobs AS b
      USING unnest($2::text[], $3::text[], $4::text[]) AS x (ns, channel, version)
      WHERE b.thread_id = $1 AND b.ns = x.ns AND b.channel = x.channel AND b.version = x.version`,

    storedBytes: `SELECT t.ttl_ms, t.touched_at,
        (SELECT COALESCE(sum(octet_length(body)), 0) FROM ${s}.checkpoints WHERE thread_id = $1)
      + (SELECT COALESCE(sum(octet_length(body)), 0) FROM ${s}.blobs WHERE thread_id = $1)
      + (SELECT COALESCE(sum(octet_length(body)), 0) FROM ${s}.writes WHERE thread_id = $1)
      + (SELECT COALESCE(sum(octet_length(body)), 0) FROM ${s}.bodies WHERE thread_id = $1) AS bytes
      FROM ${s}.threads AS t WHERE t.thread_id = $1`,
  };
}

/** Upserts writes from arrays $first…$first+4 (task, channel, body, sum, ref) against checkpoint `cp`. */
function upsertWrites(s: string, cp: string, first: number): string {
  const [task, channel, body, sum, ref] = [0, 1, 2, 3, 4].map((n) => `$${first + n}`);
  return `INSERT INTO ${s}.writes (thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum, ref)
        SELECT $1, $2, ${cp}, x.task_id, x.channel, m.top + x.ord, x.body, x.sum, x.ref
          FROM unnest(${task}::text[], ${channel}::text[], ${body}::text[], ${sum}::text[], ${ref}::text[])
            WITH ORDINALITY AS x (task_id, channel, body, sum, ref, ord),
            (SELECT COALESCE(max(seq), 0) AS top FROM ${s}.writes
              WHERE thread_id = $1 AND ns = $2 AND checkpoint_id = ${cp}) AS m
        ON CONFLICT (thread_id, ns, checkpoint_id, task_id, channel)
        DO UPDATE SET body = EXCLUDED.body, sum = EXCLUDED.sum, ref = EXCLUDED.ref`;
}

/** Stores the long bodies in arrays $first (content keys) and $first+1 (texts) once for thread $1. */
function insertBodies(s: string, first: number): string {
  return `INSERT INTO ${s}.bodies (thread_id, ref, body)
        SELECT $1, x.ref, x.body FROM unnest($${first}::text[], $${first + 1}::text[]) AS x (ref, body)
        ON CONFLICT (thread_id, ref) DO NOTHING`;
}
