// Times a run's life in the run stores, SQLite and Postgres, side by side with another copy of the
// server's sources (A/B in one process, rounds alternating): create a thread, enqueue, claim, begin
// the attempt, append events twice, finish; read the run, the thread's runs, a thread search and the
// events back. N runs per round (default 300), 6 rounds (BENCH_ROUNDS); medians per store (BENCH_KINDS:
// sqlite,postgres) and the ratio B/A.
// Run: npx tsx --conditions=@trellis/source scripts/run-store-bench.ts 300 [dir of the other copy's packages/server/src]
// e.g. git archive <commit> packages/server/src | tar -x -C test-artifacts/base  (then pass
// test-artifacts/base/packages/server/src). Postgres at TRELLIS_POSTGRES_URL or 127.0.0.1:5432/test,
// a schema of its own per store, dropped at the end.
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { dropSchema, POSTGRES_URL, testSchema } from "@trellis/checkpoint-postgres/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { RunStore } from "@trellis/server";
import pg from "pg";

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const OTHER = process.argv[3];
const THIS = resolve(import.meta.dirname, "../packages/server/src");

interface Copy {
  label: string;
  open(kind: "sqlite" | "postgres"): Promise<{ store: RunStore; close(): Promise<void> }>;
  newRunRecord: (fields: Record<string, unknown>) => never;
}

async function copyAt(label: string, dir: string): Promise<Copy> {
  const url = (p: string) => pathToFileURL(resolve(dir, p)).href;
  const { SqliteRunStore } = await import(url("stores/sqlite/sqlite-run-store.ts"));
  const { PostgresRunStore } = await import(url("stores/postgres/postgres-run-store.ts"));
  const { newRunRecord } = await import(url("runs/run-manager.ts"));
  return {
    label,
    newRunRecord,
    async open(kind) {
      if (kind === "sqlite") {
        const saver = new SqliteSaver({ filename: ":memory:" });
        return { store: new SqliteRunStore(saver.database) as RunStore, close: async () => saver.close?.() };
      }
      const schema = testSchema(`runbench_${label}`);
      const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
      const store = new PostgresRunStore({ pool, schema }) as RunStore & { setup(): Promise<void> };
      await store.setup();
      return {
        store,
        close: async () => {
          await pool.end();
          await dropSchema(schema);
        },
      };
    },
  };
}

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

async function lifecycle(copy: Copy, store: RunStore): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const threadId = randomUUID();
    const now = new Date().toISOString();
    await store.createThread(
      {
        threadId,
        createdAt: now,
        updatedAt: now,
        metadata: { i },
        status: "idle",
        owner: "u",
        graphId: null,
        error: null,
      },
      "raise",
    );
    const run = copy.newRunRecord({
      runId: randomUUID(),
      threadId,
      assistantId: "bench",
      metadata: {},
      kwargs,
      multitaskStrategy: "enqueue",
      owner: "u",
    }) as unknown as Parameters<RunStore["enqueueRun"]>[0];
    await store.enqueueRun(run, "enqueue");
    const claimed = await store.claimNext("w");
    if (!claimed) throw new Error("nothing claimed");
    const ev = [{ event: "values", data: { i } }];
    await store.beginAttempt(claimed.runId, claimed.attempt, {
      preCheckpointId: null,
      preWriteCount: 0,
      graphId: "bench",
      events: ev,
    });
    await store.appendEvents(claimed.runId, claimed.attempt, ev);
    await store.appendEvents(claimed.runId, claimed.attempt, ev);
    await store.updateThread(threadId, { metadata: { i, done: true } });
    await store.finishRun(claimed.runId, claimed.attempt, {
      status: "success",
      error: null,
      threadStatus: "idle",
      events: ev,
    });
    await store.getRun(claimed.runId);
    await store.listRuns(threadId, { limit: 10, offset: 0 });
    await store.searchThreads({ metadata: { i }, limit: 1, offset: 0, owner: "u" } as Parameters<
      RunStore["searchThreads"]
    >[0]);
    await store.eventsAfter(claimed.runId, 0);
  }
  return performance.now() - t0;
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const copies = [await copyAt("a", OTHER ? resolve(OTHER) : THIS), await copyAt("b", THIS)];
console.log(`A = ${OTHER ?? THIS}\nB = ${THIS}\n${N} runs a round, ${ROUNDS} rounds, medians (ms a run):`);
for (const kind of (process.env.BENCH_KINDS ?? "sqlite,postgres").split(",") as Array<"sqlite" | "postgres">) {
  const opened = await Promise.all(copies.map((c) => c.open(kind)));
  const times: number[][] = [[], []];
  await lifecycle(copies[0] as Copy, (opened[0] as { store: RunStore }).store); // warm-up
  await lifecycle(copies[1] as Copy, (opened[1] as { store: RunStore }).store);
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
      (times[k] as number[]).push((await lifecycle(copies[k] as Copy, (opened[k] as { store: RunStore }).store)) / N);
    }
  }
  const [a, b] = times.map(median) as [number, number];
  console.log(`${kind}: A ${a.toFixed(3)} ms, B ${b.toFixed(3)} ms, B/A ${(b / a).toFixed(3)}`);
  for (const o of opened) await o.close();
}
