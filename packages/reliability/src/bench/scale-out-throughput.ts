/**
 * Runs per second of the scale-out queue with 1, 2 and 4 worker processes on Postgres + Redis.
 *
 *   cd packages/reliability && node --conditions=@trellis/source --import tsx src/bench/scale-out-throughput.ts [runs] [workers...]
 *
 * Each worker is `workers/server-worker.ts` (a RunManager as `trellis worker` runs it, concurrency 4).
 * The runs are the `slow` graph with no delay (a → b → c: 4 checkpoints, ~12 stored events), one per
 * thread, all queued at once; the clock runs from the first enqueue to the last run's success. Also
 * reports Postgres transactions committed per run (`pg_stat_database.xact_commit`, whole database:
 * other clients of the same server count too), WAL flushes per run (`pg_stat_wal.wal_sync`, read once
 * the workers' sessions ended and reported theirs; the whole cluster) and the CPU each process used.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisQueueWake } from "@trellis/server/redis";
import pg from "pg";
import { openPlace, runRecord, slowRun, startWorker } from "../fixtures/worker-stall.js";
import { POSTGRES_URL, REDIS_URL } from "../harness/services.js";

const RUNS = Number(process.argv[2] ?? 400);
const COUNTS = process.argv.slice(3).map(Number);
const WORKERS = COUNTS.length ? COUNTS : [1, 2, 4];

async function xacts(client: pg.Client): Promise<number> {
  const { rows } = await client.query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()");
  return Number(rows[0]?.xact_commit ?? 0);
}

async function walSyncs(client: pg.Client): Promise<number> {
  const { rows } = await client.query("SELECT wal_sync FROM pg_stat_wal");
  return Number(rows[0]?.wal_sync ?? 0);
}

async function once(workers: number, dir: string) {
  const place = await openPlace("postgres", dir, { TRELLIS_COUNT_QUERIES: "1", TRELLIS_RELIABILITY_LEDGER: "" });
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  const wake = new RedisQueueWake({
    url: REDIS_URL,
    prefix: place.target.kind === "postgres" ? place.target.prefix : "x:",
  });
  try {
    const handles = await Promise.all(
      Array.from({ length: workers }, () =>
        startWorker(place, { concurrency: 4, heartbeatMs: 1_000, orphanAfterMs: 4_000 }),
      ),
    );
    const runs = Array.from({ length: RUNS }, () => slowRun(0));
    const schema = place.target.kind === "postgres" ? place.target.schema : "";
    const now = new Date().toISOString();
    for (const r of runs) {
      await client.query(
        `INSERT INTO "${schema}".server_threads (thread_id, created_at, updated_at, metadata, status) VALUES ($1, $2, $2, '{}', 'idle')`,
        [r.threadId, now],
      );
    }
    const x0 = await xacts(client);
    const w0 = await walSyncs(client);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const r of runs) await place.store.enqueueRun(runRecord(r), "enqueue");
    await wake.notify();
    for (;;) {
      const { rows } = await client.query(
        `SELECT count(*) FILTER (WHERE status IN ('success', 'error', 'interrupted', 'timeout')) AS done,
                count(*) FILTER (WHERE status = 'error') AS failed
         FROM "${schema}".server_runs`,
      );
      if (Number(rows[0]?.done) >= RUNS) {
        if (Number(rows[0]?.failed) > 0) throw new Error(`${rows[0]?.failed} runs failed`);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const ms = performance.now() - t0;
    const x1 = await xacts(client);
    const benchCpu = process.cpuUsage(cpu0);
    await new Promise((r) => setTimeout(r, 600)); // the workers' last query counts
    const byKind = new Map<string, number>();
    for (const h of handles) {
      const last = [...h.messages].reverse().find((m) => m.type === "queries");
      for (const [k, n] of Object.entries((last?.counts ?? {}) as Record<string, number>)) {
        byKind.set(k, (byKind.get(k) ?? 0) + n);
      }
    }
    const roundTrips = [...byKind.values()].reduce((a, b) => a + b, 0);
    const claims = handles.map(
      (h) => h.messages.filter((m) => m.type === "log" && (m.entry as { event: string }).event === "claim").length,
    );
    for (const h of handles) await h.kill();
    await new Promise((r) => setTimeout(r, 1_500)); // their sessions' WAL statistics are reported as they end
    const w1 = await walSyncs(client);
    return {
      workers,
      runs: RUNS,
      ms: Math.round(ms),
      runsPerSec: Math.round((RUNS / ms) * 1000 * 10) / 10,
      xactsPerRun: Math.round(((x1 - x0) / RUNS) * 10) / 10,
      walSyncsPerRun: Math.round(((w1 - w0) / RUNS) * 100) / 100,
      roundTripsPerRun: Math.round((roundTrips / RUNS) * 10) / 10,
      topStatements: [...byKind]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 12)
        .map(([k, n]) => `${(n / RUNS).toFixed(1)} ${k}`),
      claimsPerWorker: claims,
      benchCpuMs: Math.round((benchCpu.user + benchCpu.system) / 1000),
    };
  } finally {
    await wake.close();
    await client.end();
    await place.dispose();
  }
}

const dir = mkdtempSync(join(tmpdir(), "trellis-throughput-"));
try {
  for (const n of WORKERS) {
    const result = await once(n, dir);
    console.log(JSON.stringify(result));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
