import { performance } from "node:perf_hooks";
import { jsonBytes, type Runtime } from "./workload.js";
import { workloadById } from "./workloads/index.js";

/** Messages between the bench's parent process and a worker. */
export type ToWorker = { type: "run" } | { type: "stop" };
export type FromWorker =
  | { type: "ready"; rssKb: number }
  | { type: "result"; ms: number; storedBytes: number | undefined; stateBytes: number | undefined }
  | { type: "stats"; maxRssKb: number }
  | { type: "error"; message: string };

/**
 * A worker process runs one workload for one runtime, one trial per "run" message, so each runtime's
 * peak RSS is its own. The parent interleaves the runtimes by sending "run" to each in turn.
 */
async function main(): Promise<void> {
  const [id, runtime, tmpDir] = process.argv.slice(2) as [string, Runtime, string];
  const send = (message: FromWorker) => process.send?.(message);
  const gc = (globalThis as { gc?: () => void }).gc;
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
          gc?.();
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
