import { TrellisError } from "@trellis/checkpoint";
import type { Database } from "better-sqlite3";

/** One numbered schema change. Applied in order, each once, inside one `BEGIN IMMEDIATE` transaction. */
export interface SqliteMigration {
  version: number;
  name: string;
  sql: string;
}

/**
 * The schema, as numbered migrations. Never edit a shipped migration: add the next number.
 * @internal
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: "threads, checkpoints, blobs, writes",
    sql: `
      CREATE TABLE threads (
        thread_id        TEXT PRIMARY KEY,
        ttl_ms           INTEGER,
        touched_at       INTEGER NOT NULL,
        lease_owner      TEXT,
        lease_epoch      INTEGER NOT NULL DEFAULT 0,
        lease_expires_at INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE checkpoints (
        thread_id TEXT NOT NULL,
        ns        TEXT NOT NULL,
        id        TEXT NOT NULL,
        body      TEXT NOT NULL,
        sum       TEXT NOT NULL,
        PRIMARY KEY (thread_id, ns, id)
      );
      CREATE TABLE blobs (
        thread_id TEXT NOT NULL,
        ns        TEXT NOT NULL,
        channel   TEXT NOT NULL,
        version   TEXT NOT NULL,
        kind      TEXT NOT NULL CHECK (kind IN ('full', 'delta')),
        base      TEXT,
        body      TEXT NOT NULL,
        sum       TEXT NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
      );
      CREATE TABLE writes (
        thread_id     TEXT NOT NULL,
        ns            TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id       TEXT NOT NULL,
        channel       TEXT NOT NULL,
        seq           INTEGER NOT NULL,
        body          TEXT NOT NULL,
        sum           TEXT NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, channel)
      );`,
  },
  {
    version: 2,
    name: "index threads by expiry for sweepExpired",
    sql: `CREATE INDEX threads_expiry ON threads (touched_at + ttl_ms) WHERE ttl_ms IS NOT NULL;`,
  },
  {
    version: 3,
    name: "long values stored once per thread, by content key",
    // Rows written before keep their body inline (ref NULL) and read as before.
    sql: `
      CREATE TABLE bodies (
        thread_id TEXT NOT NULL,
        ref       TEXT NOT NULL,
        body      TEXT NOT NULL,
        PRIMARY KEY (thread_id, ref)
      );
      ALTER TABLE blobs ADD COLUMN ref TEXT;
      ALTER TABLE writes ADD COLUMN ref TEXT;`,
  },
  {
    version: 4,
    name: "threads, checkpoints, blobs and writes clustered by their primary key (WITHOUT ROWID)",
    // A rowid table keeps its primary key in a second b-tree, so a commit wrote a page of each: one
    // b-tree per table writes fewer pages per commit (docs/performance.md, "Issue 38, fifth session").
    // `bodies` stays a rowid table: its rows are long values, which SQLite advises against clustering.
    sql: `
      CREATE TABLE threads_v4 (
        thread_id        TEXT PRIMARY KEY,
        ttl_ms           INTEGER,
        touched_at       INTEGER NOT NULL,
        lease_owner      TEXT,
        lease_epoch      INTEGER NOT NULL DEFAULT 0,
        lease_expires_at INTEGER NOT NULL DEFAULT 0
      ) WITHOUT ROWID;
      INSERT INTO threads_v4 (thread_id, ttl_ms, touched_at, lease_owner, lease_epoch, lease_expires_at)
        SELECT thread_id, ttl_ms, touched_at, lease_owner, lease_epoch, lease_expires_at FROM threads;
      DROP TABLE threads;
      ALTER TABLE threads_v4 RENAME TO threads;
      CREATE INDEX threads_expiry ON threads (touched_at + ttl_ms) WHERE ttl_ms IS NOT NULL;

      CREATE TABLE checkpoints_v4 (
        thread_id TEXT NOT NULL,
        ns        TEXT NOT NULL,
        id        TEXT NOT NULL,
        body      TEXT NOT NULL,
        sum       TEXT NOT NULL,
        PRIMARY KEY (thread_id, ns, id)
      ) WITHOUT ROWID;
      INSERT INTO checkpoints_v4 (thread_id, ns, id, body, sum) SELECT thread_id, ns, id, body, sum FROM checkpoints;
      DROP TABLE checkpoints;
      ALTER TABLE checkpoints_v4 RENAME TO checkpoints;

      CREATE TABLE blobs_v4 (
        thread_id TEXT NOT NULL,
        ns        TEXT NOT NULL,
        channel   TEXT NOT NULL,
        version   TEXT NOT NULL,
        kind      TEXT NOT NULL CHECK (kind IN ('full', 'delta')),
        base      TEXT,
        body      TEXT NOT NULL,
        sum       TEXT NOT NULL,
        ref       TEXT,
        PRIMARY KEY (thread_id, ns, channel, version)
      ) WITHOUT ROWID;
      INSERT INTO blobs_v4 (thread_id, ns, channel, version, kind, base, body, sum, ref)
        SELECT thread_id, ns, channel, version, kind, base, body, sum, ref FROM blobs;
      DROP TABLE blobs;
      ALTER TABLE blobs_v4 RENAME TO blobs;

      CREATE TABLE writes_v4 (
        thread_id     TEXT NOT NULL,
        ns            TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id       TEXT NOT NULL,
        channel       TEXT NOT NULL,
        seq           INTEGER NOT NULL,
        body          TEXT NOT NULL,
        sum           TEXT NOT NULL,
        ref           TEXT,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, channel)
      ) WITHOUT ROWID;
      INSERT INTO writes_v4 (thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum, ref)
        SELECT thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum, ref FROM writes;
      DROP TABLE writes;
      ALTER TABLE writes_v4 RENAME TO writes;`,
  },
];

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

/**
 * Brings `db` to schema version `to` (default: the latest). Safe when several processes open the same
 * file at once: the check and the changes run in one `BEGIN IMMEDIATE` transaction. Refuses a file
 * written by a newer version of this package. Returns the version the file is at.
 * @internal
 */
export function migrateSqlite(db: Database, options: { to?: number; now?: number } = {}): number {
  const target = options.to ?? SQLITE_SCHEMA_VERSION;
  const run = db.transaction(() => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS trellis_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const row = db.prepare("SELECT MAX(version) AS v FROM trellis_migrations").get() as { v: number | null };
    const current = row.v ?? 0;
    if (current > SQLITE_SCHEMA_VERSION) {
      throw new TrellisError(
        "MIGRATION",
        `This SQLite file is at checkpoint schema version ${current}, newer than this @trellis/checkpoint-sqlite knows (${SQLITE_SCHEMA_VERSION}). Upgrade the package; do not open the file with an older one.`,
        { details: { current, known: SQLITE_SCHEMA_VERSION } },
      );
    }
    const record = db.prepare("INSERT INTO trellis_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version <= current || migration.version > target) continue;
      try {
        db.exec(migration.sql);
      } catch (cause) {
        throw new TrellisError(
          "MIGRATION",
          `SQLite checkpoint migration ${migration.version} (${migration.name}) failed: ${(cause as Error).message}. The file was left at version ${current}.`,
          { details: { version: migration.version }, cause },
        );
      }
      record.run(migration.version, migration.name, options.now ?? Date.now());
    }
    return Math.max(current, Math.min(target, SQLITE_SCHEMA_VERSION));
  });
  return run.immediate();
}
