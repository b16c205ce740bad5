/** `RunStore.eventsAfter` with a limit (and a byte budget) reads a run's events a page at a time, on SQLite and Postgres. */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresRunStore } from "../stores/postgres/postgres-run-store.js";
import type { RunStore } from "../stores/run-store.js";
import { SqliteRunStore } from "../stores/sqlite/sqlite-run-store.js";

const N = 250;
const postgres = await requirePostgres();
const schema = testSchema("paging");
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Checks the paging of a store whose run "r1" holds events 1..N and run "r2" one event. */
async function checkPaging(store: RunStore) {
  const all = await store.eventsAfter("r1", 0);
  expect(all.map((e) => e.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  const first = await store.eventsAfter("r1", 0, 100);
  expect(first.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  expect(first[0]).toEqual({ seq: 1, event: "custom", data: { i: 1 } });
  const pages: number[] = [];
  for (let last = 0; ; ) {
    const page = await store.eventsAfter("r1", last, 100);
    pages.push(page.length);
    if (page.length === 0) break;
    last = page.at(-1)?.seq ?? last;
  }
  expect(pages).toEqual([100, 100, 50, 0]);
  expect(await store.eventsAfter("r1", N - 3, 100)).toHaveLength(3);
  expect(await store.eventsAfter("r2", 0, 100)).toHaveLength(1); // another run's events stay apart
  // a byte budget cuts a page short (past its first event), and paging by it still reads each event once
  expect(await store.eventsAfter("r1", 0, { limit: 100, maxBytes: 1 })).toHaveLength(1);
  expect(await store.eventsAfter("r1", 0, { limit: 3, maxBytes: 1e9 })).toHaveLength(3);
  const seen: number[] = [];
  for (let last = 0; ; ) {
    const page = await store.eventsAfter("r1", last, { limit: 100, maxBytes: 50 });
    if (page.length === 0) break;
    expect(page.length).toBeLessThanOrEqual(8);
    seen.push(...page.map((e) => e.seq));
    last = page.at(-1)?.seq ?? last;
  }
  expect(seen).toEqual(Array.from({ length: N }, (_, i) => i + 1));
}

describe("eventsAfter paging", () => {
  it("SQLite", async () => {
    const saver = new SqliteSaver({ filename: ":memory:" });
    cleanups.push(async () => saver.close());
    const store = new SqliteRunStore(saver.database);
    const insert = saver.database.prepare(
      "INSERT INTO server_run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)",
    );
    for (let i = 1; i <= N; i++) insert.run("r1", i, "custom", JSON.stringify({ i }));
    insert.run("r2", 1, "custom", "{}");
    await checkPaging(store);
  });

  it.skipIf(!postgres)("Postgres", async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL });
    cleanups.push(async () => {
      await pool.end();
      await dropSchema(schema);
    });
    const store = new PostgresRunStore({ pool, schema });
    await store.setup();
    await pool.query(
      `INSERT INTO "${schema}".server_run_events (run_id, seq, event, data)
       SELECT 'r1', n, 'custom', json_build_object('i', n)::text FROM generate_series(1, ${N}) AS n`,
    );
    await pool.query(
      `INSERT INTO "${schema}".server_run_events (run_id, seq, event, data) VALUES ('r2', 1, 'custom', '{}')`,
    );
    await checkPaging(store);
  });
});
