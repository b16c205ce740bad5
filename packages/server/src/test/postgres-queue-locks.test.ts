/**
 * The run store's fencing by attempt, on the embedded (SQLite) and the scale-out (Postgres) store:
 * every write of an attempt is refused once another attempt owns the run, event numbers never collide
 * and stay gap-free across attempts, a run's end and its thread's status are one write, threads left
 * busy are repaired, and (Postgres) a claim never waits on another process's open transaction.
 */
import { randomUUID } from "node:crypto";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_SESSION_OPTIONS, PostgresRunStore } from "../postgres-run-store.js";
import { newRunRecord } from "../run-manager.js";
import type { MultitaskStrategy, RunStore } from "../run-store.js";
import { SqliteRunStore } from "../sqlite-run-store.js";

const postgres = await requirePostgres();
const schema = testSchema("fencing");
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (postgres) await dropSchema(schema);
});

async function sqliteStore(): Promise<RunStore> {
  const saver = new SqliteSaver({ filename: ":memory:" });
  closers.push(async () => saver.close?.());
  return new SqliteRunStore(saver.database);
}

let pgPool: pg.Pool | undefined;
async function postgresStore(): Promise<RunStore> {
  pgPool ??= new pg.Pool({ connectionString: POSTGRES_URL, options: POSTGRES_SESSION_OPTIONS, max: 6 });
  if (closers.length === 0 || !closers.includes(endPool)) closers.push(endPool);
  const store = new PostgresRunStore({ pool: pgPool, schema });
  await store.setup();
  return store;
}
const endPool = async () => pgPool?.end();

const KINDS: Array<{ name: string; open: () => Promise<RunStore>; skip: boolean }> = [
  { name: "sqlite", open: sqliteStore, skip: false },
  { name: "postgres", open: postgresStore, skip: !postgres },
];

async function newThread(store: RunStore): Promise<string> {
  const threadId = randomUUID();
  const now = new Date().toISOString();
  await store.createThread(
    { threadId, createdAt: now, updatedAt: now, metadata: {}, status: "idle", owner: null, graphId: null, error: null },
    "raise",
  );
  return threadId;
}

async function enqueue(store: RunStore, threadId: string, strategy: MultitaskStrategy = "enqueue") {
  const run = newRunRecord({
    runId: randomUUID(),
    threadId,
    assistantId: "slow",
    metadata: {},
    kwargs: {
      input: {},
      command: null,
      config: {},
      streamMode: ["values"],
      streamSubgraphs: false,
      interruptBefore: null,
      interruptAfter: null,
      checkpointId: null,
      durability: null,
    },
    multitaskStrategy: strategy,
    owner: null,
  });
  await store.enqueueRun(run, strategy);
  return run;
}

/** Claims until `runId` comes up (other tests' runs may be queued in the same store). */
async function claim(store: RunStore, worker: string, runId: string) {
  for (let i = 0; i < 50; i++) {
    const run = await store.claimNext(worker);
    if (!run) break;
    if (run.runId === runId) return run;
  }
  throw new Error(`run ${runId} was not claimed`);
}

const start = (graphId = "slow", events = [{ event: "metadata", data: {} }]) => ({
  preCheckpointId: null,
  preWriteCount: 0,
  graphId,
  events,
});

describe.each(KINDS)("run store fencing ($name)", ({ open, skip }) => {
  it.skipIf(skip)("a requeued run's old attempt can write nothing: events, status, thread, heartbeat", async () => {
    const store = await open();
    const threadId = await newThread(store);
    const run = await enqueue(store, threadId);
    const first = await claim(store, "w1", run.runId);
    expect(first.attempt).toBe(1);
    expect((await store.beginAttempt(run.runId, 1, start())).seqs).toEqual([1]);
    expect(await store.appendEvents(run.runId, 1, [{ event: "values", data: { n: 1 } }])).toEqual([2]);

    // w1 fell silent: its run goes back to the queue and w2 claims it as attempt 2
    const requeued = await store.requeueOrphans(0);
    expect(requeued.runs.map((r) => r.runId)).toContain(run.runId);
    // between the requeue and the next claim, attempt 1 is already refused
    await expect(store.appendEvents(run.runId, 1, [{ event: "values", data: {} }])).rejects.toMatchObject({
      code: "LEASE_LOST",
    });
    const second = await claim(store, "w2", run.runId);
    expect(second.attempt).toBe(2);
    await store.beginAttempt(run.runId, 2, start());

    const stale = { runId: run.runId, attempt: 1 };
    await expect(store.appendEvents(run.runId, 1, [{ event: "values", data: {} }])).rejects.toMatchObject({
      code: "LEASE_LOST",
    });
    await expect(store.beginAttempt(run.runId, 1, start())).rejects.toMatchObject({ code: "LEASE_LOST" });
    await expect(
      store.finishRun(run.runId, 1, { status: "success", error: null, threadStatus: "idle", events: [] }),
    ).rejects.toMatchObject({ code: "LEASE_LOST" });
    expect(await store.releaseRun(run.runId, 1)).toBe(false);
    expect(await store.heartbeat("w1", [stale])).toEqual({ stops: [], lost: [run.runId] });
    expect(await store.heartbeat("w2", [{ runId: run.runId, attempt: 2 }])).toEqual({ stops: [], lost: [] });

    // the current attempt's events go on from the last number: one gap-free numbering
    expect(await store.appendEvents(run.runId, 2, [{ event: "values", data: { n: 2 } }])).toEqual([4]);
    await store.finishRun(run.runId, 2, {
      status: "success",
      error: null,
      threadStatus: "idle",
      events: [{ event: "end", data: null }],
    });
    expect((await store.eventsAfter(run.runId, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await store.getRun(run.runId))?.status).toBe("success");
    expect((await store.getThread(threadId))?.status).toBe("idle");
    // a finished run is never claimed again
    expect(await store.heartbeat("w2", [{ runId: run.runId, attempt: 2 }])).toEqual({ stops: [], lost: [run.runId] });
  });

  it.skipIf(skip)("concurrent appends of one attempt never collide and leave no gap", async () => {
    const store = await open();
    const run = await enqueue(store, await newThread(store));
    await claim(store, "w1", run.runId);
    const batches = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.appendEvents(run.runId, 1, [
          { event: "a", data: i },
          { event: "b", data: i },
        ]),
      ),
    );
    const seqs = batches.flat().sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const b of batches) expect(b[1]).toBe((b[0] as number) + 1);
  });

  it.skipIf(skip)("a run's end sets its thread's status in the same write; busy while another is queued", async () => {
    const store = await open();
    const threadId = await newThread(store);
    const r1 = await enqueue(store, threadId);
    const r2 = await enqueue(store, threadId);
    await claim(store, "w1", r1.runId);
    await store.beginAttempt(r1.runId, 1, start());
    // r2 is queued behind r1: the thread stays busy
    await store.finishRun(r1.runId, 1, { status: "success", error: null, threadStatus: "interrupted", events: [] });
    expect((await store.getThread(threadId))?.status).toBe("busy");
    await claim(store, "w1", r2.runId);
    await store.finishRun(r2.runId, 1, {
      status: "error",
      error: { error: "X", message: "x" },
      threadStatus: "error",
      events: [],
    });
    expect((await store.getThread(threadId))?.status).toBe("error");
  });

  it.skipIf(skip)("a thread left busy with no active run (a process died between two writes) is repaired", async () => {
    const store = await open();
    const threadId = await newThread(store);
    const run = await enqueue(store, threadId);
    await claim(store, "w1", run.runId);
    // the old, two-write ending: the run's status landed, the thread's did not
    await store.updateRun(run.runId, { status: "interrupted" });
    expect((await store.getThread(threadId))?.status).toBe("busy");
    const { repairedThreads } = await store.requeueOrphans(0);
    expect(repairedThreads).toContain(threadId);
    expect((await store.getThread(threadId))?.status).toBe("interrupted");
  });

  it.skipIf(skip)("a thread never has two running runs; its runs start in order", async () => {
    const store = await open();
    const threadId = await newThread(store);
    const runs = [await enqueue(store, threadId), await enqueue(store, threadId), await enqueue(store, threadId)];
    const claimed = (await Promise.all([store.claimNext("a"), store.claimNext("b"), store.claimNext("c")])).filter(
      (r) => r?.threadId === threadId,
    );
    expect(claimed.map((r) => r?.runId)).toEqual([runs[0]?.runId]);
    expect((await store.activeRuns(threadId)).filter((r) => r.status === "running")).toHaveLength(1);
  });

  it.skipIf(skip)(
    "cancelling a queued run settles it and its thread in one write; a running one gets the stop",
    async () => {
      const store = await open();
      const threadId = await newThread(store);
      const r1 = await enqueue(store, threadId);
      const r2 = await enqueue(store, threadId);
      await claim(store, "w1", r1.runId);
      expect(await store.cancelRun(r2.runId, "interrupt")).toBe("cancelled");
      expect(await store.cancelRun(r1.runId, "rollback")).toBe("signalled");
      expect(await store.heartbeat("w1", [{ runId: r1.runId, attempt: 1 }])).toEqual({
        stops: [{ runId: r1.runId, cancel: "rollback" }],
        lost: [],
      });
      await store.finishRun(r1.runId, 1, { status: "interrupted", error: null, threadStatus: "idle", events: [] });
      expect(await store.cancelRun(r1.runId, "interrupt")).toBe("finished");
      expect((await store.getThread(threadId))?.status).toBe("idle");
    },
  );
});

describe.skipIf(!postgres)("postgres queue: no lock held across a client's round trip", () => {
  it("a stalled transaction holding a queued run's row and a thread's lock delays nothing else", async () => {
    const store = await postgresStore();
    const stalledThread = await newThread(store);
    const stalledRun = await enqueue(store, stalledThread);
    // a worker that stopped mid-transaction (SIGSTOP) would hold these: the run's row and its thread's lock
    const stalled = new pg.Client({ connectionString: POSTGRES_URL, options: POSTGRES_SESSION_OPTIONS });
    await stalled.connect();
    closers.push(() => stalled.end());
    stalled.on("error", () => undefined);
    await stalled.query("BEGIN");
    await stalled.query(`SELECT 1 FROM "${schema}".server_runs WHERE run_id = $1 FOR UPDATE`, [stalledRun.runId]);
    await stalled.query("SELECT pg_advisory_xact_lock(74120002, hashtext($1))", [stalledThread]);

    const t0 = Date.now();
    const other = await enqueue(store, await newThread(store));
    const got = await claim(store, "w2", other.runId);
    expect(got.attempt).toBe(1);
    const took = Date.now() - t0;
    expect(took).toBeLessThan(1_000);

    // the session idle in its transaction is ended by the server (idle_in_transaction_session_timeout)
    const ended = await new Promise<number>((resolve) => {
      const began = Date.now();
      stalled.once("error", () => resolve(Date.now() - began));
      stalled.once("end", () => resolve(Date.now() - began));
    });
    expect(ended).toBeLessThan(7_000);
    // and the run it held is claimable again
    const freed = await claim(store, "w3", stalledRun.runId);
    expect(freed.attempt).toBe(1);
    console.log(
      `[fencing] enqueue + claim beside a stalled transaction: ${took} ms; the stalled session was ended after ${ended} ms more`,
    );
  }, 20_000);
});
