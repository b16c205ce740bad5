/**
 * The SQL of {@link SqliteSaver}, prepared once per connection and cached.
 * @internal
 */
export const SQL = {
  thread: "SELECT ttl_ms, touched_at, lease_owner, lease_epoch, lease_expires_at FROM threads WHERE thread_id = ?",
  insertThread: "INSERT INTO threads (thread_id, touched_at) VALUES (?, ?)",
  touchThread: "UPDATE threads SET touched_at = ? WHERE thread_id = ?",
  setTtl: "UPDATE threads SET ttl_ms = ?, touched_at = ? WHERE thread_id = ?",
  setLease: "UPDATE threads SET lease_owner = ?, lease_epoch = ?, lease_expires_at = ? WHERE thread_id = ?",
  releaseLease: "UPDATE threads SET lease_expires_at = 0 WHERE thread_id = ? AND lease_owner = ? AND lease_epoch = ?",
  expiredThreads: "SELECT thread_id FROM threads WHERE ttl_ms IS NOT NULL AND touched_at + ttl_ms <= ?",
  deleteThread: [
    "DELETE FROM writes WHERE thread_id = ?",
    "DELETE FROM blobs WHERE thread_id = ?",
    "DELETE FROM bodies WHERE thread_id = ?",
    "DELETE FROM checkpoints WHERE thread_id = ?",
    "DELETE FROM threads WHERE thread_id = ?",
  ],

  latestCheckpoint: "SELECT id, body, sum FROM checkpoints WHERE thread_id = ? AND ns = ? ORDER BY id DESC LIMIT 1",
  checkpointById: "SELECT id, body, sum FROM checkpoints WHERE thread_id = ? AND ns = ? AND id = ?",
  checkpointExists: "SELECT 1 AS found FROM checkpoints WHERE thread_id = ? AND ns = ? AND id = ?",
  pageNewest: "SELECT id, body, sum FROM checkpoints WHERE thread_id = ? AND ns = ? ORDER BY id DESC LIMIT ?",
  pageBefore:
    "SELECT id, body, sum FROM checkpoints WHERE thread_id = ? AND ns = ? AND id < ? ORDER BY id DESC LIMIT ?",
  upsertCheckpoint: `INSERT INTO checkpoints (thread_id, ns, id, body, sum) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, ns, id) DO UPDATE SET body = excluded.body, sum = excluded.sum`,

  upsertBlob: `INSERT INTO blobs (thread_id, ns, channel, version, kind, base, body, sum, ref)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, ns, channel, version)
    DO UPDATE SET kind = excluded.kind, base = excluded.base, body = excluded.body, sum = excluded.sum, ref = excluded.ref`,
  /** A long body, stored once per thread under its content key; rows with `ref` set hold '' instead. */
  bodyExists: "SELECT 1 AS found FROM bodies WHERE thread_id = ? AND ref = ?",
  insertBody: "INSERT INTO bodies (thread_id, ref, body) VALUES (?, ?, ?) ON CONFLICT (thread_id, ref) DO NOTHING",
  /** Drops the thread's bodies no blob or write refers to any more. */
  pruneBodies: `DELETE FROM bodies WHERE thread_id = @t
      AND ref NOT IN (SELECT ref FROM blobs WHERE thread_id = @t AND ref IS NOT NULL)
      AND ref NOT IN (SELECT ref FROM writes WHERE thread_id = @t AND ref IS NOT NULL)`,
  /**
   * Every channel's delta chain at once: starts from the versions of one checkpoint (a JSON object
   * channel → version) and follows `base` links back to a full value. Newest link first per channel.
   */
  chains: `WITH RECURSIVE chain (channel, version, kind, base, body, sum, ref, depth) AS (
      SELECT b.channel, b.version, b.kind, b.base, b.body, b.sum, b.ref, 0
        FROM json_each(@versions) AS j
        JOIN blobs AS b ON b.thread_id = @t AND b.ns = @ns AND b.channel = j.key AND b.version = j.value
      UNION ALL
      SELECT b.channel, b.version, b.kind, b.base, b.body, b.sum, b.ref, c.depth + 1
        FROM chain AS c
        JOIN blobs AS b ON b.thread_id = @t AND b.ns = @ns AND b.channel = c.channel AND b.version = c.base
       WHERE c.kind = 'delta' AND c.depth < 1000000
    )
    SELECT c.channel, c.version, c.kind, c.base, c.sum,
        CASE WHEN c.ref IS NULL THEN c.body ELSE s.body END AS body
      FROM chain AS c LEFT JOIN bodies AS s ON c.ref IS NOT NULL AND s.thread_id = @t AND s.ref = c.ref
     ORDER BY c.channel, c.depth`,
  blobLinks: "SELECT channel, version, base FROM blobs WHERE thread_id = ? AND ns = ?",
  deleteBlob: "DELETE FROM blobs WHERE thread_id = ? AND ns = ? AND channel = ? AND version = ?",

  maxSeq: "SELECT COALESCE(MAX(seq), 0) AS seq FROM writes WHERE thread_id = ? AND ns = ? AND checkpoint_id = ?",
  upsertWrite: `INSERT INTO writes (thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum, ref)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, ns, checkpoint_id, task_id, channel)
    DO UPDATE SET body = excluded.body, sum = excluded.sum, ref = excluded.ref`,
  writesOf: `SELECT w.task_id, w.channel, w.sum, CASE WHEN w.ref IS NULL THEN w.body ELSE s.body END AS body
      FROM writes AS w LEFT JOIN bodies AS s ON w.ref IS NOT NULL AND s.thread_id = w.thread_id AND s.ref = w.ref
     WHERE w.thread_id = ? AND w.ns = ? AND w.checkpoint_id = ? ORDER BY w.seq`,

  namespaces: "SELECT DISTINCT ns FROM checkpoints WHERE thread_id = ?",
  /** Deletes all but the newest N checkpoints of a namespace (the third parameter is N - 1). */
  pruneCheckpoints: `DELETE FROM checkpoints WHERE thread_id = @t AND ns = @ns AND id < (
      SELECT id FROM checkpoints WHERE thread_id = @t AND ns = @ns ORDER BY id DESC LIMIT 1 OFFSET @offset)`,
  pruneWrites: `DELETE FROM writes WHERE thread_id = @t AND ns = @ns
      AND checkpoint_id NOT IN (SELECT id FROM checkpoints WHERE thread_id = @t AND ns = @ns)`,
  checkpointBodies: "SELECT id, body, sum FROM checkpoints WHERE thread_id = ? AND ns = ?",

  storedBytes: `SELECT
      (SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) FROM checkpoints WHERE thread_id = @t) +
      (SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) FROM blobs WHERE thread_id = @t) +
      (SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) FROM writes WHERE thread_id = @t) +
      (SELECT COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) FROM bodies WHERE thread_id = @t) AS bytes`,
} as const;
