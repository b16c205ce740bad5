// Times fair claims on the SQLite and Postgres run stores: N queued runs (default 5,000), 80% of them one
// owner's, the rest spread over four more, each on its own thread; then 500 claims, each one statement
// (never finished, so the owners' running counts grow as a busy server's do).
// Run: npx tsx --conditions=@trellis/source scripts/claim-bench.ts 5000   (Postgres at TRELLIS_POSTGRES_URL
// or 127.0.0.1:5432/test; a schema of its own, dropped at the end)
import { randomUUID } from "node:crypto";
import { dropSchema, POSTGRES_URL, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { RunStore } from "@trellis/server";
import { SqliteRunStore } from "@trellis/server";
import pg from "pg";
import { newRunRecord } from "../packages/server/src/runs/run-manager.js";
import { PostgresRunStore } from "../packages/server/src/stores/postgres/postgres-run-store.js";

const N = Number(process.argv[2] ?? 5000);
const OWNERS = ["bob", "alice", "carol", "dan", "eve"];

async function queue(store: RunStore, owner: string): Promise<void> {
  const threadId = randomUUID();
  const now = new Date().toISOString();
  await store.createThread(
    { threadId, createdAt: now, updatedAt: now, metadata: {}, status: "idle", owner, graphId: null, error: null },
    "raise",
  );
  const kwargs = {
    input: {},
    command: null,
    config: {},
    streamMode: ["values"],
    streamSubgraphs: false,
    interruptBefore: null,
    interruptAfter: null,
    checkpointId: null,
    durability: null,
  };
  const run = newRunRecord({
    runId: randomUUID(),
    threadId,
    assistantId: "bench",
    metadata: {},
    kwargs,
    multitaskStrategy: "enqueue",
    owner,
  });
  await store.enqueueRun(run, "enqueue");
}

async function bench(name: string, store: RunStore): Promise<void> {
  for (let i = 0; i < N; i++) await queue(store, i < N * 0.8 ? "bob" : (OWNERS[i % 5] as string));
  const t0 = performance.now();
  let n = 0;
  for (; n < 500; n++) if (!(await store.claimNext("bench"))) break;
  const ms = performance.now() - t0;
  console.log(`${name}: ${n} claims with ${N} queued (80% one owner's, 5 owners): ${(ms / n).toFixed(2)} ms a claim`);
}

const saver = new SqliteSaver({ filename: ":memory:" });
await bench("sqlite", new SqliteRunStore(saver.database));
const schema = testSchema("claimbench");
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
try {
  const store = new PostgresRunStore({ pool, schema });
  await store.setup();
  await bench("postgres", store);
} finally {
  await pool.end();
  await dropSchema(schema);
}
