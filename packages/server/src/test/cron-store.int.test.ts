/**
 * The cron stores' claim, on SQLite (two connections to one file) and Postgres (two pools): one winner
 * per tick however many race, and never a second run for a tick time an update moved the cron back to.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { CronRecord, CronStore } from "../stores/cron-store.js";
import { PostgresCronStore } from "../stores/postgres/postgres-cron-store.js";
import { SqliteCronStore } from "../stores/sqlite/sqlite-cron-store.js";

const postgres = await requirePostgres();
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const T = Date.parse("2026-01-05T10:05:00Z");
const MIN = 60_000;

function cron(cronId: string): CronRecord {
  return {
    cronId,
    assistantId: "slow",
    threadId: null,
    userId: null,
    schedule: "*/5 * * * *",
    timezone: null,
    payload: {},
    metadata: {},
    endTimeMs: null,
    nextRunMs: T,
    onRunCompleted: "delete",
    enabled: true,
    createdAt: "2026-01-05T10:00:00.000Z",
    updatedAt: "2026-01-05T10:00:00.000Z",
  };
}

async function checkClaims([a, b]: [CronStore, CronStore]) {
  await a.create(cron("c1"));
  // twenty claims of one tick from two connections at once: one wins
  const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim("c1", T, T + 5 * MIN)));
  expect(wins.filter(Boolean)).toHaveLength(1);
  expect((await b.get("c1"))?.nextRunMs).toBe(T + 5 * MIN);
  expect(await a.due(T + 4 * MIN, 10)).toEqual([]);

  // an update from a process whose clock is behind puts the next run back on the tick already taken
  await b.update("c1", { nextRunMs: T, updatedAt: "2026-01-05T10:04:30.000Z" });
  expect((await a.due(T + 10_000, 10)).map((c) => c.cronId)).toEqual(["c1"]);
  expect(await a.claim("c1", T, T + 5 * MIN)).toBe(false); // no second run for 10:05
  expect((await a.get("c1"))?.nextRunMs).toBe(T + 5 * MIN); // but the cron moves on, not stuck on it
  expect(await b.claim("c1", T + 5 * MIN, T + 10 * MIN)).toBe(true); // the next tick runs

  // a disabled cron's tick is not taken
  await a.update("c1", { enabled: false, updatedAt: "2026-01-05T10:11:00.000Z" });
  expect(await a.claim("c1", T + 10 * MIN, T + 15 * MIN)).toBe(false);
}

describe("cron store claims", () => {
  it("SQLite, two connections to one file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trellis-cron-store-"));
    const one = new BetterSqlite3(join(dir, "crons.sqlite"), { timeout: 5_000 });
    one.pragma("journal_mode = WAL");
    const two = new BetterSqlite3(join(dir, "crons.sqlite"), { timeout: 5_000 });
    cleanups.push(() => {
      one.close();
      two.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await checkClaims([new SqliteCronStore(one), new SqliteCronStore(two)]);
  });

  it.skipIf(!postgres)("Postgres, two pools", async () => {
    const schema = testSchema("cronstore");
    const pools = [new pg.Pool({ connectionString: POSTGRES_URL }), new pg.Pool({ connectionString: POSTGRES_URL })];
    cleanups.push(async () => {
      for (const p of pools) await p.end();
      await dropSchema(schema);
    });
    const [a, b] = pools.map((pool) => new PostgresCronStore({ pool, schema })) as [
      PostgresCronStore,
      PostgresCronStore,
    ];
    await a.setup();
    await b.setup();
    await checkClaims([a, b]);
  });
});
