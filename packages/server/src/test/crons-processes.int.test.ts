/**
 * Two server processes on one Postgres schema, each with its own scheduler looking every 20 ms on the
 * real clock, race for the same ticks: each tick starts exactly one run.
 */
import type { ChildProcess } from "node:child_process";
import { Client } from "@langchain/langgraph-sdk";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "./harness.js";
import { launchTestChild } from "./serve-child-launch.js";

const postgres = await requirePostgres();
const schema = testSchema("cronproc");
const children: ChildProcess[] = [];
const pool = new pg.Pool({ connectionString: POSTGRES_URL });

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const stuck = setTimeout(() => child.kill("SIGKILL"), 5_000); // a close that hangs must not hold the suite
    await exited;
    clearTimeout(stuck);
  }
  await pool.end();
  if (postgres) await dropSchema(schema);
});

function startChild(): Promise<string> {
  const { child, url } = launchTestChild("cron-child.ts", [POSTGRES_URL, schema]);
  children.push(child);
  return url;
}

describe.skipIf(!postgres)("crons across server processes", () => {
  it("two processes racing for ten ticks start exactly ten runs", { timeout: 60_000 }, async () => {
    const first = await startChild(); // the first applies the migrations; the second finds them done
    const second = await startChild();
    const client = new Client({ apiUrl: first, apiKey: null });
    const thread = await client.threads.create({ graphId: "slow" });
    const cron = await client.crons.createForThread(thread.thread_id, "slow", {
      // once a year (midnight, January 1st): no real tick falls inside the test, only the ten made below
      // (with "* * * * *" a loaded run that crossed a minute boundary saw an eleventh run, a real tick)
      schedule: "0 0 1 1 *",
      input: { delayMs: 0 },
      multitaskStrategy: "enqueue",
    });
    const table = `"${schema}".server_crons`;
    const TICKS = 10;
    // a real tick cannot be waited for: make one due now, each later than the last and in the past (a
    // tick at or before the last one taken is skipped, as one an update moved back to would be)
    const base = Date.now() - 60_000;
    for (let i = 0; i < TICKS; i++) {
      const tick = base + i;
      await pool.query(`UPDATE ${table} SET next_run_ms = $1 WHERE cron_id = $2`, [tick, cron.cron_id]);
      await eventually(async () => {
        const { rows } = await pool.query(`SELECT next_run_ms FROM ${table} WHERE cron_id = $1`, [cron.cron_id]);
        return Number(rows[0]?.next_run_ms) !== tick; // taken: moved to the next real tick
      }, 10_000);
    }
    const runs = await eventually(async () => {
      const list = await new Client({ apiUrl: second, apiKey: null }).runs.list(thread.thread_id, { limit: 100 });
      return list.length >= TICKS && list.every((r) => r.status === "success") && list;
    }, 20_000);
    expect(runs).toHaveLength(TICKS);
    expect(runs.every((r) => r.metadata?.cron_id === cron.cron_id)).toBe(true);
  });
});
