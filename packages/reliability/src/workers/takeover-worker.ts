/**
 * Runs (or continues) one thread of the ledger graph, for the dead-holder takeover scenarios. Started
 * by the {@link CrashDriver} with tsx.
 *
 * - `waitForGo`: opens the saver, says `{ type: "ready" }` and waits for `{ type: "go" }`, so the driver
 *   times the takeover of a killed writer's thread and not this process's start.
 * - Says `{ type: "acquired", epoch, busy }` the first time it holds the thread's lease (`busy`: the
 *   `THREAD_BUSY` answers before that), then runs the thread to its end, unless killed (`killAt`, or the
 *   driver's SIGKILL) or paused (`holdAt`).
 * - `cannotJudge`: its saver judges no lease holder dead, as a process of another host sees the lease.
 *
 * Reports `{ type: "done", status, log, busy }`, or `{ type: "error", code }`.
 */
import { type CheckpointSaver, LeaseError } from "@trellis/checkpoint";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { ledgerGraph } from "../fixtures/ledger-graph.js";
import { Ledger } from "../harness/ledger.js";
import type { SaverTarget } from "../harness/saver-targets.js";
import { type PointJob, points, readJob, runWorker, tell } from "../harness/worker-side.js";

/** The job of a takeover worker. */
export interface TakeoverJob extends PointJob {
  target: SaverTarget;
  ledger: string;
  threadId: string;
  rounds: number;
  /** Lease TTL. Default 30 s (the runtime's default): a takeover within it is not the lease expiring. */
  leaseTtlMs?: number;
  workMs?: number;
  waitForGo?: boolean;
  cannotJudge?: boolean;
  /** Every process of a scenario runs under this run id (each execution is still a holder of its own). */
  runId?: string;
  /** Give up on a busy thread after this long. Default 40 s. */
  busyForMs?: number;
}

const job = readJob<TakeoverJob>();

function open(target: SaverTarget): CheckpointSaver {
  const judge = job.cannotJudge ? { isHolderDead: () => false } : {};
  switch (target.kind) {
    case "sqlite":
      return new SqliteSaver({ filename: target.filename, busyTimeoutMs: 10_000, ...judge });
    case "postgres":
      return new PostgresSaver({
        connectionString: target.url,
        schema: target.schema,
        poolConfig: { max: 4 },
        ...judge,
      });
    case "redis":
      return new RedisSaver({ url: target.url, keyPrefix: target.keyPrefix, ...judge });
  }
}

runWorker(async () => {
  const ledger = Ledger.open(job.ledger);
  const inner = open(job.target);
  let busy = 0;
  let acquired = false;
  const acquireLease: CheckpointSaver["acquireLease"] = async (threadId, owner, ttlMs) => {
    const lease = await inner.acquireLease(threadId, owner, ttlMs);
    if (!acquired) {
      acquired = true;
      tell({ type: "acquired", epoch: lease.epoch, busy });
    }
    return lease;
  };
  const saver = new Proxy(inner, {
    get(target, key) {
      if (key === "acquireLease") return acquireLease;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const armed = new Set([job.killAt, ...(job.holdAt ?? [])]);
  const graph = ledgerGraph({
    saver,
    ledger,
    rounds: job.rounds,
    point: points(job, (name) => ledger.record("point", name)),
    armed: (name) => armed.has(name),
    leaseTtlMs: job.leaseTtlMs ?? 30_000,
    ...(job.workMs !== undefined ? { workMs: job.workMs } : {}),
  });
  if (job.waitForGo) {
    await inner.get({ threadId: job.threadId }); // connected and warm before the clock starts
    await new Promise<void>((resolve) => {
      const onMessage = (m: { type?: string }) => {
        if (m?.type !== "go") return;
        process.off("message", onMessage);
        resolve();
      };
      process.on("message", onMessage);
      tell({ type: "ready" });
    });
  }
  const config = {
    threadId: job.threadId,
    recursionLimit: job.rounds * 3 + 10,
    ...(job.runId ? { runId: job.runId } : {}),
  };
  const until = Date.now() + (job.busyForMs ?? 40_000);
  for (;;) {
    const head = await inner.get({ threadId: job.threadId });
    const result = await graph.run(head ? null : { log: [] }, config);
    if (result.status === "error") {
      const error = result.error;
      if (error instanceof LeaseError && error.code === "THREAD_BUSY" && Date.now() < until) {
        busy++;
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      throw error;
    }
    tell({ type: "done", status: result.status, log: result.values.log, busy });
    break;
  }
  await inner.close?.();
  ledger.close();
});
