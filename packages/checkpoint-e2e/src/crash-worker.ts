/**
 * A worker process for crash-resume.int.test.ts, run with tsx. It runs one thread of a small graph
 * (a → b1 ∥ b2 → c) on the saver named in its arguments and records every side effect in a ledger
 * file. In "crash" mode b2 tells the parent it is mid-run (after b1 finished and after a durable
 * step) and then hangs, waiting for SIGKILL. In "resume" mode it opens the saver, says "ready", waits
 * for the parent's "go" and continues the thread to the end, reporting how long that took and how
 * often the thread was busy on the way.
 */
import { appendFileSync } from "node:fs";
import { LeaseError } from "@trellis/checkpoint";
import { channel, END, START, StateGraph } from "@trellis/core";
import { type CrashTarget, openSaver } from "./crash-target.js";

export type { CrashTarget } from "./crash-target.js";

export interface CrashJob {
  mode: "crash" | "resume";
  target: CrashTarget;
  threadId: string;
  ledger: string;
  leaseTtlMs: number;
}

const job = JSON.parse(process.argv[2] ?? "{}") as CrashJob;
const ledger = (entry: string) => appendFileSync(job.ledger, `${entry}\n`);

const saver = openSaver(job.target);
const graph = new StateGraph({ log: channel.append<string>() })
  .addNode("a", async () => {
    ledger("a");
    return { log: ["a"] };
  })
  .addNode("b1", async () => {
    ledger("b1");
    return { log: ["b1"] };
  })
  .addNode("b2", async (_state, ctx) => {
    ledger(`b2-start:${job.mode}`);
    const receipt = await ctx.step("email", async () => {
      ledger("email");
      return "sent";
    });
    if (job.mode === "crash") {
      // Give b1's writes time to be stored, then wait to be killed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.send?.({ type: "mid-run" });
      setInterval(() => {}, 60_000); // nothing else keeps an idle process alive (SQLite is synchronous)
      await new Promise(() => {});
    }
    ledger("b2-done");
    return { log: [`b2:${receipt}`] };
  })
  .addNode("c", async () => {
    ledger("c");
    return { log: ["c"] };
  })
  .addEdge(START, "a")
  .addEdge("a", "b1")
  .addEdge("a", "b2")
  .addEdge(["b1", "b2"], "c")
  .addEdge("c", END)
  .compile({ checkpointer: saver, leaseTtlMs: job.leaseTtlMs });

async function main(): Promise<void> {
  const config = { threadId: job.threadId };
  if (job.mode === "crash") {
    await graph.invoke({ log: [] }, config);
    throw new Error("the crash run was supposed to be killed before it finished");
  }
  // Ready before the kill, so the parent times the takeover and not this process's start.
  await saver.get({ threadId: job.threadId });
  await new Promise<void>((resolve) => {
    process.once("message", () => resolve());
    process.send?.({ type: "ready" });
  });
  const started = Date.now();
  let busy = 0;
  for (;;) {
    try {
      const result = await graph.invoke(null, config);
      process.send?.({ type: "done", result, busy, tookMs: Date.now() - started });
      break;
    } catch (error) {
      // A holder this process cannot judge (another host) fences the thread until its lease expires.
      if (!(error instanceof LeaseError) || error.code !== "THREAD_BUSY") throw error;
      busy++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await saver.close?.();
  process.disconnect?.();
}

main().catch((error) => {
  process.send?.({ type: "error", message: String(error?.stack ?? error) });
  process.exitCode = 1;
});
