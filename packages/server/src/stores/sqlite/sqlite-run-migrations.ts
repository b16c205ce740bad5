import type { Database } from "better-sqlite3";

/**
 * The server's tables, as numbered migrations. Never edit a shipped one: add the next number. They live
 * in the same SQLite file as the checkpoints, beside the saver's tables, prefixed `server_`.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: "threads, runs, run events",
    sql: `
      CREATE TABLE server_threads (
        thread_id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        metadata TEXT NOT NULL,
        status TEXT NOT NULL,
        owner TEXT,
        graph_id TEXT,
        error TEXT
      );
      CREATE TABLE server_runs (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL UNIQUE,
        thread_id TEXT NOT NULL,
        assistant_id TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        metadata TEXT NOT NULL,
        kwargs TEXT NOT NULL,
        multitask_strategy TEXT NOT NULL,
        owner TEXT,
        attempt INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        pre_checkpoint_id TEXT,
        pre_write_count INTEGER NOT NULL DEFAULT 0,
        cancel TEXT
      );
      CREATE INDEX server_runs_thread ON server_runs (thread_id, seq);
      CREATE INDEX server_runs_status ON server_runs (status, seq);
      CREATE TABLE server_run_events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: "run workers and heartbeats",
    sql: `
      ALTER TABLE server_runs ADD COLUMN worker_id TEXT;
      ALTER TABLE server_runs ADD COLUMN heartbeat_at INTEGER;
    `,
  },
  {
    version: 3,
    name: "attempt fencing: event counter per run, pre-run head recorded once, one running run per thread, task leases",
    sql: `
      ALTER TABLE server_runs ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE server_runs ADD COLUMN pre_recorded INTEGER NOT NULL DEFAULT 0;
      UPDATE server_runs SET
        last_seq = (SELECT COALESCE(MAX(seq), 0) FROM server_run_events e WHERE e.run_id = server_runs.run_id),
        pre_recorded = CASE WHEN attempt > 0 THEN 1 ELSE 0 END;
      UPDATE server_runs SET status = 'pending' WHERE status = 'running';
      CREATE UNIQUE INDEX server_runs_one_running ON server_runs (thread_id) WHERE status = 'running';
      CREATE INDEX server_runs_finished ON server_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE TABLE server_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
    `,
  },
  {
    version: 4,
    name: "one row a durable commit updates to sync the bookkeeping's quick commits",
    sql: `
      CREATE TABLE server_syncs (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT INTO server_syncs (id, n) VALUES (1, 0);
    `,
  },
  {
    version: 5,
    name: "when a thread's state last changed: a resume is bound to the pause pending when it arrived",
    sql: "ALTER TABLE server_threads ADD COLUMN state_changed_at REAL;",
  },
  {
    version: 6,
    name: "fair shares: pending and running runs and threads by owner",
    sql: `
      CREATE INDEX server_runs_owner_pending ON server_runs (owner, seq) WHERE status = 'pending';
      CREATE INDEX server_runs_owner_running ON server_runs (owner) WHERE status = 'running';
      CREATE INDEX server_threads_owner ON server_threads (owner);
    `,
  },
];

/** Applies the server's pending migrations; returns the schema version. @internal */
export function migrateServerTables(db: Database): number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS trellis_server_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const apply = db.transaction(() => {
    const row = db.prepare("SELECT MAX(version) AS v FROM trellis_server_migrations").get() as { v: number | null };
    let version = row.v ?? 0;
    for (const m of MIGRATIONS) {
      if (m.version <= version) continue;
      db.exec(m.sql);
      db.prepare("INSERT INTO trellis_server_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
      version = m.version;
    }
    return version;
  });
  return apply.immediate();
}
