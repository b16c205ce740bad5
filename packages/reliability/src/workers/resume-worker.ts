/**
 * One of several processes that answer the same interrupt at once. Waits for the driver's
 * `{ type: "go" }` (sent to all at the same moment), then resumes the thread with
 * `Command({ resume: { [interruptId]: answer } })`, retrying while another process holds the thread.
 * Reports `{ type: "done", status }` when its answer was applied, or `{ type: "refused", code }`.
 */
import { TrellisError } from "@trellis/checkpoint";
import { Command } from "@trellis/core";
import { interruptGraph } from "../fixtures/interrupt-graph.js";
import { Ledger } from "../harness/ledger.js";
import { openSaver, type SaverTarget } from "../harness/saver-targets.js";
import { readJob, runWorker, tell } from "../harness/worker-side.js";

/** The job of a resume worker. */
export interface ResumeJob {
  target: SaverTarget;
  ledger: string;
  threadId: string;
  interruptId: string;
  answer: string;
}

const job = readJob<ResumeJob>();

runWorker(async () => {
  const ledger = Ledger.open(job.ledger);
  const saver = openSaver(job.target);
  const graph = interruptGraph({ saver, ledger });
  await saver.get({ threadId: job.threadId }); // connect before the race starts
  await new Promise<void>((resolve) => {
    process.once("message", () => resolve());
    tell({ type: "ready" });
  });
  let busy = 0;
  const until = Date.now() + 20_000;
  for (;;) {
    const result = await graph.run(new Command({ resume: { [job.interruptId]: job.answer } }), {
      threadId: job.threadId,
    });
    if (result.status !== "error") {
      tell({ type: "done", status: result.status, busy });
      break;
    }
    const code = result.error instanceof TrellisError ? result.error.code : "UNTYPED";
    if (code === "THREAD_BUSY" && Date.now() < until) {
      busy++;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      continue;
    }
    tell({ type: "refused", code, busy, message: String((result.error as Error)?.message) });
    break;
  }
  await saver.close?.();
  ledger.close();
});
