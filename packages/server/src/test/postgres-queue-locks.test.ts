/**
 * The Postgres queue never waits on another process's open transaction: a claim goes past a stalled
 * one. (Fencing by attempt, on both run stores, is in the run store conformance suite.)
 */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { POSTGRES_SESSION_OPTIONS, PostgresRunStore } from "../stores/postgres/postgres-run-store.js";
import type { RunStore } from "../stores/run-store.js";
import { eventually } from "./harness.js";
import { claim, enqueue, newThread } from "./run-store-fixtures.js";

const postgres = await requirePostgres();
const schema = testSchema("fencing");
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (postgres) await dropSchema(schema);
});

let pgPool: pg.Pool | undefined;
async function postgresStore(): Promise<RunStore> {
  pgPool ??= new pg.Pool({ connectionString: POSTGRES_URL, options: POSTGRES_SESSION_OPTIONS, max: 6 });
  if (!closers.includes(endPool)) closers.push(endPool);
  const store = new PostgresRunStore({ pool: pgPool, schema });
  await store.setup();
  return store;
}
const endPool = async () => pgPool?.end();

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

    const began = Date.now();
    const ended = new Promise<number>((resolve) => {
      stalled.once("error", () => resolve(Date.now() - began));
      stalled.once("end", () => resolve(Date.now() - began));
    });
    let stalledOpen = true;
    void ended.then(() => {
      stalledOpen = false;
    });
    const other = await enqueue(store, await newThread(store));
    const got = await claim(store, "w2", other.runId);
    expect(got.attempt).toBe(1);
    const took = Date.now() - began;
    // claimed while the stalled transaction still held its locks: nothing waited for it to end
    expect(stalledOpen).toBe(true);

    // the session idle in its transaction is ended by the server (idle_in_transaction_session_timeout,
    // 5 s): not left open (the bound is a margin a loaded machine keeps)
    const endedAfter = (await ended) - took;
    expect(endedAfter).toBeLessThan(20_000);
    // and the run it held is claimable again: the client hears of the session's end before the ended
    // backend has released its locks (it reports FATAL, then exits), so the claim may need another try
    const freed = await eventually(() => claim(store, "w3", stalledRun.runId).catch(() => undefined), 5_000);
    expect(freed.attempt).toBe(1);
    console.log(
      `[fencing] enqueue + claim beside a stalled transaction: ${took} ms; the stalled session was ended after ${endedAfter} ms more`,
    );
  }, 20_000);
});
