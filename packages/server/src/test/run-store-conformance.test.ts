/**
 * The run store conformance suite on both run stores: the embedded one in a SQLite file and the
 * scale-out one in PostgreSQL (a schema of this run's own, dropped after).
 */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import pg from "pg";
import { afterAll } from "vitest";
import { POSTGRES_SESSION_OPTIONS, PostgresRunStore } from "../stores/postgres/postgres-run-store.js";
import type { RunStore } from "../stores/run-store.js";
import { SqliteRunStore } from "../stores/sqlite/sqlite-run-store.js";
import { describeRunStoreConformance } from "./run-store-conformance.js";

const postgres = await requirePostgres();
const schema = testSchema("runstore");
const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (postgres) await dropSchema(schema);
});

let sqlite: RunStore | undefined;
async function sqliteStore(): Promise<RunStore> {
  if (!sqlite) {
    const saver = new SqliteSaver({ filename: ":memory:" });
    closers.push(async () => saver.close?.());
    sqlite = new SqliteRunStore(saver.database);
  }
  return sqlite;
}

let postgresRuns: Promise<RunStore> | undefined;
function postgresStore(): Promise<RunStore> {
  postgresRuns ??= (async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, options: POSTGRES_SESSION_OPTIONS, max: 6 });
    closers.push(() => pool.end());
    const store = new PostgresRunStore({ pool, schema });
    await store.setup();
    return store;
  })();
  return postgresRuns;
}

describeRunStoreConformance([
  { name: "sqlite", open: sqliteStore, skip: false },
  { name: "postgres", open: postgresStore, skip: !postgres },
]);
