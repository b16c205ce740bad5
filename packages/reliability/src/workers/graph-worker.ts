/**
 * Runs (or continues) one thread of the ledger graph on the saver its job names, stopping at named
 * points when told to. Started by the {@link CrashDriver} with tsx.
 *
 * - `mode: "auto"`: starts the thread when it has no checkpoint, else continues it (`invoke(null)`),
 *   waiting out THREAD_BUSY while a killed process's lease runs out.
 * - `drainOnSigterm`: SIGTERM aborts the run's `drainSignal`, so it stops at the next step boundary.
 *
 * Reports `{ type: "done", status, log, busy }`, or `{ type: "error", code }`.
 */
import { LeaseError } from "@trellis/checkpoint";
import type { Durability } from "@trellis/core";
import { ledgerGraph } from "../fixtures/ledger-graph.js";
import { Ledger } from "../harness/ledger.js";
import { openSaver, type SaverTarget } from "../harness/saver-targets.js";
import { type PointJob, points, readJob, runWorker, tell } from "../harness/worker-side.js";

/** The job of a graph worker. */
export interface GraphJob extends PointJob {
  target: SaverTarget;
  /** Service URL to use instead of the target's (a fault proxy). */
  url?: string;
  ledger: string;
  threadId: string;
  rounds: number;
  durability?: Durability;
  leaseTtlMs?: number;
  workMs?: number;
  drainOnSigterm?: boolean;
  /** Give up on a busy thread after this long. Default 20 s. */
  busyForMs?: number;
  /** Slows every checkpoint put down by this much (ms). */
  putDelayMs?: number;
  /** Start a new run with an input even when the thread has checkpoints. */
  withInput?: boolean;
  /** Lease owner: a new attempt with the run id of a killed one takes its lease over at once. */
  runId?: string;
  /** Per-run breakpoints. */
  interruptBefore?: string[];
  /** Continue with `recover: true` (a server's recovered attempt): a pause the run had reached is kept. */
  recover?: boolean;
}

const job = readJob<GraphJob>();

runWorker(async () => {
  const ledger = Ledger.open(job.ledger);
  const saver = openSaver(job.target, job.url ? { url: job.url } : {});
  const armed = new Set([job.killAt, ...(job.holdAt ?? [])]);
  const point = points(job, (name) => ledger.record("point", name));
  const graph = ledgerGraph({
    saver,
    ledger,
    rounds: job.rounds,
    point,
    armed: (name) => armed.has(name),
    ...(job.workMs !== undefined ? { workMs: job.workMs } : {}),
    ...(job.leaseTtlMs !== undefined ? { leaseTtlMs: job.leaseTtlMs } : {}),
    ...(job.putDelayMs !== undefined ? { putDelayMs: job.putDelayMs } : {}),
  });
  const drain = new AbortController();
  if (job.drainOnSigterm) {
    process.on("SIGTERM", () => {
      drain.abort("SIGTERM");
      ledger.record("point", "sigterm");
      tell({ type: "sigterm" });
    });
  }
  const config = {
    threadId: job.threadId,
    recursionLimit: job.rounds * 3 + 10,
    durability: job.durability ?? "sync",
    drainSignal: drain.signal,
    ...(job.runId ? { runId: job.runId } : {}),
    ...(job.interruptBefore ? { interruptBefore: job.interruptBefore } : {}),
  };
  let busy = 0;
  const until = Date.now() + (job.busyForMs ?? 20_000);
  for (;;) {
    const head = await saver.get({ threadId: job.threadId });
    const continuing = head && !job.withInput;
    const result = await graph.run(continuing ? null : { log: [] }, {
      ...config,
      ...(continuing && job.recover ? { recover: true } : {}),
    });
    if (result.status === "error") {
      const error = result.error;
      if (error instanceof LeaseError && error.code === "THREAD_BUSY" && Date.now() < until) {
        busy++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      throw error;
    }
    tell({
      type: "done",
      status: result.status,
      log: result.values.log,
      busy,
      next: result.status === "interrupted" ? result.next : [],
    });
    break;
  }
  await saver.close?.();
  ledger.close();
});
