/** The Postgres run store's tables, functions and indexes as numbered migrations; `S` is replaced by the quoted schema. */
export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE S.server_threads (
        thread_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, metadata JSONB NOT NULL,
        status TEXT NOT NULL, owner TEXT, graph_id TEXT, error TEXT);
      CREATE TABLE S.server_runs (
        seq BIGSERIAL PRIMARY KEY, run_id TEXT NOT NULL UNIQUE, thread_id TEXT NOT NULL, assistant_id TEXT NOT NULL,
        status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, metadata TEXT NOT NULL,
        kwargs TEXT NOT NULL, multitask_strategy TEXT NOT NULL, owner TEXT, attempt INTEGER NOT NULL DEFAULT 0,
        error TEXT, pre_checkpoint_id TEXT, pre_write_count INTEGER NOT NULL DEFAULT 0, cancel TEXT,
        worker_id TEXT, heartbeat_at BIGINT);
      CREATE INDEX server_runs_thread ON S.server_runs (thread_id, seq);
      CREATE INDEX server_runs_status ON S.server_runs (status, seq);
      CREATE TABLE S.server_run_events (
        run_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq));
    `,
  },
  {
    version: 2,
    sql: `
      ALTER TABLE S.server_runs ADD COLUMN last_seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE S.server_runs ADD COLUMN pre_recorded BOOLEAN NOT NULL DEFAULT FALSE;
      UPDATE S.server_runs r SET
        last_seq = COALESCE((SELECT MAX(seq) FROM S.server_run_events e WHERE e.run_id = r.run_id), 0),
        pre_recorded = r.attempt > 0;
      CREATE UNIQUE INDEX server_runs_one_running ON S.server_runs (thread_id) WHERE status = 'running';
      CREATE INDEX server_runs_pending ON S.server_runs (seq) WHERE status = 'pending';
      CREATE INDEX server_runs_finished ON S.server_runs (updated_at) WHERE status NOT IN ('pending', 'running');
      CREATE TABLE S.server_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL);
    `,
  },
  {
    version: 3,
    // a run's end in one round trip: the thread's lock, the fenced status change, the last events and
    // the thread's status (each statement of a volatile function sees what committed before it)
    sql: `
      CREATE FUNCTION S.server_finish_run(p_run TEXT, p_attempt INT, p_status TEXT, p_error TEXT, p_now TEXT,
          p_thread_status TEXT, p_events TEXT[], p_data TEXT[])
        RETURNS INT[] LANGUAGE plpgsql AS $fn$
      DECLARE
        v_thread TEXT;
        v_last INT;
        v_n INT := COALESCE(array_length(p_events, 1), 0);
      BEGIN
        SELECT thread_id INTO v_thread FROM S.server_runs WHERE run_id = p_run;
        IF v_thread IS NULL THEN RETURN NULL; END IF;
        PERFORM pg_advisory_xact_lock(74120002, hashtext(v_thread));
        UPDATE S.server_runs SET status = p_status, error = p_error, updated_at = p_now, worker_id = NULL,
            last_seq = last_seq + v_n
          WHERE run_id = p_run AND attempt = p_attempt AND status = 'running'
          RETURNING last_seq INTO v_last;
        IF v_last IS NULL THEN RETURN NULL; END IF;
        INSERT INTO S.server_run_events (run_id, seq, event, data)
          SELECT p_run, v_last - v_n + e.n, e.event, e.data
          FROM unnest(p_events, p_data) WITH ORDINALITY AS e(event, data, n);
        UPDATE S.server_threads SET updated_at = p_now, status = CASE WHEN EXISTS (
            SELECT 1 FROM S.server_runs a WHERE a.thread_id = v_thread AND a.status IN ('pending', 'running'))
            THEN 'busy' ELSE p_thread_status END
          WHERE thread_id = v_thread;
        RETURN ARRAY(SELECT generate_series(v_last - v_n + 1, v_last));
      END
      $fn$;
    `,
  },
  {
    version: 4,
    // when a thread's state last changed, on the database's clock: a resume is bound to the pause
    // pending when its request arrived
    sql: "ALTER TABLE S.server_threads ADD COLUMN state_changed_at DOUBLE PRECISION;",
  },
  {
    version: 5,
    // fair shares: each owner's queue and running runs (a null owner, auth off, is '' as no user is)
    sql: `
      CREATE INDEX server_runs_owner_pending ON S.server_runs ((COALESCE(owner, '')), seq) WHERE status = 'pending';
      CREATE INDEX server_runs_owner_running ON S.server_runs ((COALESCE(owner, ''))) WHERE status = 'running';
      CREATE INDEX server_threads_owner ON S.server_threads (owner);
    `,
  },
  {
    version: 6,
    // the sync before an answer: when the cluster's WAL is not flushed to its end, a synchronous commit
    // (of one of eight rows, by backend, so processes syncing at once rarely wait on each other's row)
    // whose flush makes every earlier commit durable, whichever process made it
    sql: `
      CREATE TABLE S.server_syncs (slot INTEGER PRIMARY KEY, n BIGINT NOT NULL DEFAULT 0);
      INSERT INTO S.server_syncs (slot) SELECT generate_series(0, 7);
      CREATE FUNCTION S.server_sync_commits() RETURNS BOOLEAN LANGUAGE plpgsql AS $fn$
      BEGIN
        IF pg_current_wal_flush_lsn() >= pg_current_wal_insert_lsn() THEN RETURN FALSE; END IF;
        IF current_setting('synchronous_commit') = 'off' THEN
          PERFORM set_config('synchronous_commit', 'on', true);
        END IF;
        UPDATE S.server_syncs SET n = n + 1 WHERE slot = pg_backend_pid() % 8;
        RETURN TRUE;
      END
      $fn$;
    `,
  },
];

/** Serializes migrations across processes starting at once (taken only by `setup`). */
export const MIGRATION_LOCK = 74_120_001;
