import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { jsonBytes, type Runtime } from "./workload.js";
import { workloadById } from "./workloads/index.js";

/** Messages between the bench's parent process and a worker. */
export type ToWorker =
  | { type: "run"; batch: number }
  | { type: "warmup"; runs: number; minMs: number }
  | { type: "stop" };
export type FromWorker =
  | { type: "ready"; rssKb: number }
  | { type: "result"; ms: number; storedBytes: number | undefined; stateBytes: number | undefined }
  | { type: "warm"; runs: number; medianMs: number }
  | { type: "stats"; maxRssKb: number }
  | { type: "error"; message: string };

const MAX_WARMUP_RUNS = 500;
/**
 * A run shorter than this is warmed up for SHORT_RUN_WARMUP runs (or SHORT_RUN_WARMUP_MS): V8 optimizes
 * a runtime's code over its first ~100–150 runs (measured on (a): 0.8 → 0.16 ms per run without a saver,
 * 2.5 → 0.5 ms with the memory saver; (c) at 3,000 tasks 40–60 ms per run after 3 warm-up runs, 13 ms
 * once warm).
 */
const SHORT_RUN_MS = 100;
const SHORT_RUN_WARMUP_MS = 3000;
/** Warm-up runs of a short workload, so its timed runs meet optimized code, not V8's tiers on the way. */
const SHORT_RUN_WARMUP = 200;

function median(values: readonly number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
}

/**
 * A worker process runs one workload for one runtime, one trial per "run" message, so each runtime's
 * peak RSS is its own. The parent interleaves the runtimes by sending "run" to each in turn.
 */
async function main(): Promise<void> {
  const [id, runtime, tmpDir] = process.argv.slice(2) as [string, Runtime, string];
  const send = (message: FromWorker) => process.send?.(message);
  // LangGraph.js adds an abort listener per task to one signal; its warning past 10 would flood stderr.
  setMaxListeners(0);
  try {
    const impl = await workloadById(id).make(runtime, { tiny: false, tmpDir });
    send({ type: "ready", rssKb: Math.round(process.memoryUsage.rss() / 1024) });
    let first = true;
    process.on("message", (message: ToWorker) => {
      if (message.type === "stop") {
        send({ type: "stats", maxRssKb: process.resourceUsage().maxRSS });
        process.disconnect();
        return;
      }
      void (async () => {
        try {
          if (message.type === "warmup") {
            // At least `runs` runs, and more until `minMs` have passed (capped), so cheap workloads
            // reach steady JIT state before they are timed; a short workload at least SHORT_RUN_WARMUP (or 3 s).
            const start = performance.now();
            const times: number[] = [];
            const more = () => {
              if (times.length >= MAX_WARMUP_RUNS) return false;
              if (times.length < message.runs || performance.now() - start < message.minMs) return true;
              return (
                times.length < SHORT_RUN_WARMUP &&
                performance.now() - start < SHORT_RUN_WARMUP_MS &&
                median(times.slice(-20)) < SHORT_RUN_MS
              );
            };
            while (more()) {
              const trial = await impl.trial();
              const t = performance.now();
              await trial.run();
              times.push(performance.now() - t);
              await trial.dispose?.();
            }
            send({ type: "warm", runs: times.length, medianMs: median(times.slice(-20)) });
            return;
          }
          // A batch of trials back to back, each set up and measured apart, timed run by run: the
          // sample is their mean, so a sub-millisecond run is not timed as a core's return from another
          // process's work (the runtimes take turns between batches), and the garbage collections the
          // batch triggers are paid by its runs.
          let total = 0;
          let storedBytes: number | undefined;
          for (let i = 0; i < message.batch; i++) {
            const trial = await impl.trial();
            const start = performance.now();
            const state = await trial.run();
            total += performance.now() - start;
            if (i === message.batch - 1) {
              storedBytes = trial.storedBytes ? await trial.storedBytes() : undefined;
              const stateBytes = first && runtime === "floor" ? jsonBytes(state) : undefined;
              first = false;
              await trial.dispose?.();
              send({ type: "result", ms: total / message.batch, storedBytes, stateBytes });
            } else await trial.dispose?.();
          }
        } catch (error) {
          send({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        }
      })();
    });
  } catch (error) {
    send({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}

void main();
