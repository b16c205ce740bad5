/**
 * A server's run executor in a process of its own, as `trellis worker` (or an embedded server) runs
 * it: a RunManager on the SQLite queue, or on Postgres + Redis (scale-out), with the reliability
 * graphs. Started by the {@link CrashDriver} with tsx; stops at the manager's named points.
 *
 * - `submit`: runs to queue first (in this process), then work the queue.
 * - `waitFor`: run ids; reports `{ type: "done", runs }` once each reached a final status, and exits.
 *   Without it the worker works the queue until it is killed.
 *
 * Named points: `claimed` (the run is claimed, its attempt not started), `before-finish:<status>` (the
 * attempt reached its end — e.g. a breakpoint checkpoint written — and the run is not yet marked).
 * Each is reported as `<point>` and `<point>:<runId>`, so a job can arm one run's point.
 */
import { randomUUID } from "node:crypto";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import {
  type EventHub,
  type HostedGraph,
  LocalEventHub,
  type QueueWake,
  RunManager,
  type RunStore,
  SqliteRunStore,
  TERMINAL_RUN_STATUSES,
} from "@trellis/server";
import { POSTGRES_SESSION_OPTIONS, PostgresRunStore } from "@trellis/server/postgres";
import { RedisEventHub, RedisQueueWake } from "@trellis/server/redis";

import { askGraph, slowGraph, tickerGraph } from "../fixtures/server-graphs.js";
import { runRecord } from "../fixtures/worker-stall.js";
import { POSTGRES_URL, REDIS_URL } from "../harness/services.js";
import { type PointJob, points, readJob, runWorker, tell } from "../harness/worker-side.js";

/** Where the queue and the checkpoints live. */
export type ServerTarget = { kind: "sqlite"; file: string } | { kind: "postgres"; schema: string; prefix: string };

/** A run to queue before working. */
export interface SubmitRun {
  runId: string;
  threadId: string;
  assistantId: "slow" | "ask" | "ticker";
  input: Record<string, unknown>;
  interruptBefore?: string[];
  interruptAfter?: string[];
}

/** The job of a server worker. */
export interface ServerJob extends PointJob {
  target: ServerTarget;
  submit?: SubmitRun[];
  waitFor?: string[];
  concurrency?: number;
  heartbeatMs?: number;
  orphanAfterMs?: number;
}

const job = readJob<ServerJob>();

/** Round trips to Postgres by statement kind, when `TRELLIS_COUNT_QUERIES` is set (the throughput bench). */
const queries = new Map<string, number>();
if (process.env.TRELLIS_COUNT_QUERIES) {
  const pg = (await import("pg")).default;
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === "string" ? args[0] : String((args[0] as { text?: string })?.text ?? "");
    const kind = text.trim().split(/\s+/).slice(0, 3).join(" ").slice(0, 40);
    queries.set(kind, (queries.get(kind) ?? 0) + 1);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  setInterval(() => tell({ type: "queries", counts: Object.fromEntries(queries) }), 500).unref();
}

function graphs(saver: CheckpointSaver): Map<string, HostedGraph> {
  const createdAt = new Date().toISOString();
  const built = { slow: slowGraph(), ask: askGraph(), ticker: tickerGraph() };
  return new Map(
    Object.entries(built).map(([assistantId, graph]) => [
      assistantId,
      { assistantId, entry: { module: "server-graphs" }, graph: graph.withCheckpointer(saver), createdAt },
    ]),
  );
}

async function open(): Promise<{
  saver: CheckpointSaver;
  store: RunStore;
  hub: EventHub;
  wake?: QueueWake;
  close(): Promise<void>;
}> {
  const target = job.target;
  if (target.kind === "sqlite") {
    const saver = new SqliteSaver({ filename: target.file });
    return {
      saver,
      store: new SqliteRunStore(saver.database),
      hub: new LocalEventHub(),
      close: async () => saver.close(),
    };
  }
  const saver = new PostgresSaver({
    connectionString: POSTGRES_URL,
    schema: target.schema,
    poolConfig: { options: POSTGRES_SESSION_OPTIONS },
  });
  await saver.setup();
  const store = new PostgresRunStore({ pool: saver.pool, schema: target.schema });
  await store.setup();
  const hub = new RedisEventHub({ url: REDIS_URL, prefix: target.prefix });
  const wake = new RedisQueueWake({ url: REDIS_URL, prefix: target.prefix });
  return {
    saver,
    store,
    hub,
    wake,
    async close() {
      await hub.close();
      await wake.close();
      await saver.close();
    },
  };
}

runWorker(async () => {
  const point = points(job);
  const storage = await open();
  const manager = new RunManager({
    store: storage.store,
    hub: storage.hub,
    saver: storage.saver,
    graphs: graphs(storage.saver),
    concurrency: job.concurrency ?? 2,
    limits: { stateBytes: 8 * 1024 * 1024, runTimeMs: 120_000 },
    ...(job.target.kind === "postgres"
      ? { shared: { heartbeatMs: job.heartbeatMs ?? 200, orphanAfterMs: job.orphanAfterMs ?? 1_000 } }
      : {}),
    ...(storage.wake ? { wake: storage.wake } : {}),
    log: (entry) => tell({ type: "log", entry }),
    point: async (name, run) => {
      await point(name);
      await point(`${name}:${run.runId}`);
    },
  });
  await manager.start();
  for (const s of job.submit ?? []) {
    const now = new Date().toISOString();
    await storage.store.createThread(
      {
        threadId: s.threadId,
        createdAt: now,
        updatedAt: now,
        metadata: {},
        status: "idle",
        owner: null,
        graphId: null,
        error: null,
      },
      "do_nothing",
    );
    await manager.submit(runRecord(s), "enqueue");
  }
  tell({ type: "ready", worker: manager.workerId, id: randomUUID() });
  if (!job.waitFor) {
    await new Promise(() => {}); // works the queue until killed
    return;
  }
  for (;;) {
    const runs = await Promise.all(job.waitFor.map((id) => storage.store.getRun(id)));
    if (runs.every((r) => r && TERMINAL_RUN_STATUSES.has(r.status))) {
      tell({ type: "done", runs });
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await manager.stop();
  await storage.store.close();
  await storage.close();
});
