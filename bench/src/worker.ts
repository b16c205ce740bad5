import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { jsonBytes, type Runtime } from "./workload.js";
import { workloadById } from "./workloads/index.js";

/** Messages between the bench's parent process and a worker. */
export type ToWorker = { type: "run" } | { type: "warmup"; runs: number; minMs: number } | { type: "stop" };
export type FromWorker =
  | { type: "ready"; rssKb: number }
  | { type: "result"; ms: number; storedBytes: number | undefined; stateBytes: number | undefined }
  | { type: "warm"; runs: number }
  | { type: "stats"; maxRssKb: number }
  | { type: "error"; message: string };

const MAX_WARMUP_RUNS = 500;

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
            // reach steady JIT state before they are timed.
            const start = performance.now();
            let runs = 0;
            while (runs < message.runs || (performance.now() - start < message.minMs && runs < MAX_WARMUP_RUNS)) {
              const trial = await impl.trial();
              await trial.run();
              await trial.dispose?.();
              runs++;
            }
            send({ type: "warm", runs });
            return;
          }
          const trial = await impl.trial();
          const start = performance.now();
          const state = await trial.run();
          const ms = performance.now() - start;
          const storedBytes = trial.storedBytes ? await trial.storedBytes() : undefined;
          const stateBytes = first && runtime === "floor" ? jsonBytes(state) : undefined;
          first = false;
          await trial.dispose?.();
          send({ type: "result", ms, storedBytes, stateBytes });
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
