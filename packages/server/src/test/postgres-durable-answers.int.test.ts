/**
 * The durable-answers rule on Postgres (docs/server.md, "Durability"): the run store's bookkeeping
 * commits with `synchronous_commit = off`, and an answer waits for one synchronous commit whose WAL
 * flush carries every earlier commit. Observed in the database itself: a deferred constraint trigger
 * on each of the store's tables records the `synchronous_commit` in force when the writing transaction
 * commits. And a server process SIGKILLed right after an answer keeps what it answered: a commit made
 * with `synchronous_commit = off` is Postgres', not the process's, once it returns.
 */
import { randomUUID } from "node:crypto";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../stores/postgres/postgres-run-store.js";
import { startTestServer, type TestServer } from "./harness.js";
import { enqueue } from "./run-store-fixtures.js";
import { launchServeChild } from "./serve-child-launch.js";

await requirePostgres();
const schema = testSchema("durable");
const pool = new pg.Pool({ connectionString: POSTGRES_URL });
const store = new PostgresRunStore({ pool, schema });
const TABLES = ["server_threads", "server_runs", "server_run_events", "server_leases", "server_syncs"];

beforeAll(async () => {
  await store.setup();
  const s = `"${schema}"`;
  await pool.query(`CREATE TABLE ${s}.commit_log (id BIGSERIAL PRIMARY KEY, tbl TEXT NOT NULL, level TEXT NOT NULL)`);
  await pool.query(`CREATE FUNCTION ${s}.log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO ${s}.commit_log (tbl, level) VALUES (TG_TABLE_NAME, current_setting('synchronous_commit'));
      RETURN NULL;
    END $fn$`);
  for (const table of TABLES) {
    // deferred: it runs as the transaction commits, so it sees the level its commit is made at
    await pool.query(`CREATE CONSTRAINT TRIGGER log_commit AFTER INSERT OR UPDATE OR DELETE ON ${s}.${table}
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${s}.log_commit()`);
  }
});

afterAll(async () => {
  await store.close();
  await pool.end();
  await dropSchema(schema);
});

/** The commit levels logged since `after` (a log id), oldest first. */
async function logged(after: number): Promise<Array<{ id: number; tbl: string; level: string }>> {
  const { rows } = await pool.query(`SELECT id, tbl, level FROM "${schema}".commit_log WHERE id > $1 ORDER BY id`, [
    after,
  ]);
  return rows.map((r) => ({ id: Number(r.id), tbl: r.tbl as string, level: r.level as string }));
}

async function lastLogId(): Promise<number> {
  const { rows } = await pool.query(`SELECT COALESCE(MAX(id), 0) AS id FROM "${schema}".commit_log`);
  return Number(rows[0]?.id);
}

/** Creates an idle thread through `into`, and returns its id. */
async function createIdleThread(into: PostgresRunStore): Promise<string> {
  const now = new Date().toISOString();
  const threadId = randomUUID();
  const thread = { threadId, createdAt: now, updatedAt: now, metadata: {}, status: "idle" as const };
  await into.createThread({ ...thread, owner: null, graphId: null, error: null }, "raise");
  return threadId;
}

describe("durable answers (Postgres)", () => {
  it("commits every bookkeeping write with synchronous_commit off, and syncs with one synchronous commit", async () => {
    const start = await lastLogId();
    const threadId = await createIdleThread(store);
    await store.updateThread(threadId, { metadata: { k: 1 } });
    await store.markStateChanged(threadId);
    const run = await enqueue(store, threadId);
    const claimed = await store.claimNext("w1");
    expect(claimed?.runId).toBe(run.runId);
    const attempt = claimed?.attempt ?? 0;
    await store.beginAttempt(run.runId, attempt, {
      preCheckpointId: null,
      preWriteCount: 0,
      graphId: "g",
      events: [{ event: "metadata", data: {} }],
    });
    await store.appendEvents(run.runId, attempt, [{ event: "values", data: { n: 1 } }]);
    await store.heartbeat("w1", [{ runId: run.runId, attempt }]);
    await store.finishRun(run.runId, attempt, {
      status: "success",
      error: null,
      threadStatus: "idle",
      events: [{ event: "end", data: null }],
      metadata: { usage: {} },
    });
    await store.appendEvent(run.runId, "custom", {});
    await store.exclusive("sweep", 1_000, async () => undefined);
    const other = await enqueue(store, threadId);
    await store.cancelRun(other.runId, "interrupt");
    await store.deleteThread(threadId);

    const quick = await logged(start);
    const tables = new Set(quick.map((l) => l.tbl));
    for (const table of ["server_threads", "server_runs", "server_run_events", "server_leases"]) {
      expect(tables.has(table)).toBe(true);
    }
    expect(quick.filter((l) => l.level !== "off")).toEqual([]);

    const before = store.commitCounts.synced;
    await store.syncCommits();
    // the bookkeeping's WAL may have been flushed by the WAL writer meanwhile; commit once more to be sure
    if (store.commitCounts.synced === before) {
      await store.markStateChanged(threadId);
      await store.syncCommits();
    }
    expect(store.commitCounts.synced).toBe(before + 1);
    const synced = (await logged(start)).filter((l) => l.tbl === "server_syncs");
    expect(synced.map((l) => l.level)).toEqual(["on"]);
  });

  it("the sync flushes commits another process made (another pool stands for it)", async () => {
    const otherPool = new pg.Pool({ connectionString: POSTGRES_URL });
    const other = new PostgresRunStore({ pool: otherPool, schema });
    try {
      await createIdleThread(other);
      // this store made no commit of its own, yet its sync finds the other's commit unflushed (or already flushed)
      const { rows } = await pool.query("SELECT pg_current_wal_insert_lsn() AS lsn");
      await store.syncCommits();
      const flushed = await pool.query("SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok", [rows[0]?.lsn]);
      expect(flushed.rows[0]?.ok).toBe(true);
    } finally {
      await other.close();
      await otherPool.end();
    }
  });

  describe("over HTTP", () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startTestServer({ saver: { kind: "postgres", url: POSTGRES_URL, schema } }, { workers: 0 });
    });
    afterAll(async () => {
      await t.close();
    });

    it("an answer goes out after the synchronous commit that covers its quick commits", async () => {
      const served = t.server.store as PostgresRunStore;
      const start = await lastLogId();
      const before = served.commitCounts.synced;
      const answer = await fetch(`${t.url}/threads`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(answer.status).toBe(200);
      const log = await logged(start);
      const created = log.find((l) => l.tbl === "server_threads");
      expect(created?.level).toBe("off");
      // one synchronous commit after it, before the answer (unless the WAL writer flushed it first)
      const syncs = log.filter((l) => l.tbl === "server_syncs");
      expect(syncs.length).toBeLessThanOrEqual(1);
      expect(served.commitCounts.synced - before).toBe(syncs.length);
      for (const s of syncs) {
        expect(s.level).toBe("on");
        expect(s.id).toBeGreaterThan(created?.id ?? 0);
      }
    });

    it("the liveness probe GET /ok syncs nothing: no round trip to Postgres", async () => {
      const served = t.server.store as PostgresRunStore;
      const original = served.syncCommits.bind(served);
      let calls = 0;
      served.syncCommits = async () => {
        calls++;
        return original();
      };
      try {
        expect((await fetch(`${t.url}/ok`)).status).toBe(200);
        expect(calls).toBe(0);
        expect((await fetch(`${t.url}/threads`, { method: "POST", body: "{}" })).status).toBe(200);
        expect(calls).toBe(1);
      } finally {
        served.syncCommits = original;
      }
    });
  });

  it("a server killed (SIGKILL) right after its answer loses nothing it answered", { timeout: 60_000 }, async () => {
    const { child, url: ready } = launchServeChild([POSTGRES_URL, schema]);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const url = await ready;
      const post = (path: string, body: unknown) =>
        fetch(`${url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
      const answer = await post(`/threads/${thread.thread_id}/runs/wait`, {
        assistant_id: "slow",
        input: { delayMs: 0 },
      });
      expect(((await answer.json()) as { log: string[] }).log).toEqual(["a", "b", "c"]);
      child.kill("SIGKILL"); // the moment the answer is read: the run's end committed quick
      await exited;
      expect((await store.getThread(thread.thread_id))?.status).toBe("idle");
      const runs = await store.listRuns(thread.thread_id, { limit: 10, offset: 0 });
      expect(runs.map((r) => r.status)).toEqual(["success"]);
      const events = await store.eventsAfter(runs[0]?.runId ?? "", 0);
      expect(events.length).toBeGreaterThan(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});
