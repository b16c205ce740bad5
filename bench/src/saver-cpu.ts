import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Lease, PendingWrite } from "@trellis/checkpoint";
import { stepRequest } from "@trellis/checkpoint/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";

/**
 * CPU time of the saver's side of workload (e), without the runtime: for 200 threads, the six calls a
 * start → interrupt → resume makes on a `SqliteSaver` (the lease with the load, the input put, the
 * interrupt with the release; the lease with the load, the resume value with the next put, the last put
 * with the release), each timed with `process.cpuUsage()`. Prints CPU µs per thread for each call and in
 * all, median of `runs` fresh files (after one warm-up), so the saver's share of (e) can be read beside
 * `cpu-side-by-side.js e-resume/sqlite`.
 *
 *   node bench/dist/saver-cpu.js NORMAL 9     # or FULL
 */
async function main(): Promise<void> {
  const [mode = "NORMAL", runsText = "9"] = process.argv.slice(2);
  if (mode !== "NORMAL" && mode !== "FULL") throw new Error(`unknown mode ${mode}: NORMAL or FULL`);
  const runs = Number.parseInt(runsText, 10);
  const dir = mkdtempSync(join(tmpdir(), "trellis-saver-cpu-"));
  const results: Record<string, number>[] = [];
  try {
    await once(dir, mode);
    for (let i = 0; i < runs; i++) results.push(await once(dir, mode));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lines = Object.keys(results[0] ?? {}).map((call) => {
    const values = results.map((r) => r[call] ?? 0).sort((a, b) => a - b);
    return `${call.padEnd(30)} ${((values[Math.floor(values.length / 2)] ?? 0) / 200).toFixed(1)} µs per thread`;
  });
  process.stdout.write(`SqliteSaver ${mode}, median of ${runs} runs × 200 threads, CPU:\n${lines.join("\n")}\n`);
}

let files = 0;

async function once(dir: string, mode: "NORMAL" | "FULL"): Promise<Record<string, number>> {
  const saver = new SqliteSaver({ filename: join(dir, `run-${++files}.sqlite`), synchronous: mode });
  const spent: Record<string, number> = {};
  const timed = async <T>(call: string, fn: () => Promise<T>): Promise<T> => {
    const start = process.cpuUsage();
    const out = await fn();
    const used = process.cpuUsage(start);
    spent[call] = (spent[call] ?? 0) + used.user + used.system;
    return out;
  };
  let id = 0;
  const nextId = () => `0000${(++id).toString(16).padStart(12, "0")}`;
  const write = (channel: string, value: unknown): PendingWrite[] => [{ taskId: "ask-task", channel, value }];
  for (let i = 0; i < 200; i++) {
    const threadId = `thread-${i}`;
    const first: Lease = (
      await timed("lease + load (new thread)", () => saver.acquireLeaseAndGet({ threadId }, "w", 30_000))
    ).lease;
    const input = stepRequest({ threadId, id: nextId(), full: { question: `q${i}`, answer: "", done: false } });
    await timed("put (input)", () => saver.put({ ...input, lease: first }));
    const paused = { threadId, checkpointId: input.checkpoint.id };
    const interrupt = write("__interrupt__", [{ id: `i${i}`, value: { question: `q${i}` } }]);
    await timed("commit (interrupt + release)", () =>
      saver.commit({ writes: { ref: paused, writes: interrupt }, lease: first, release: true }),
    );
    const lease = (await timed("lease + load (paused)", () => saver.acquireLeaseAndGet({ threadId }, "w", 30_000)))
      .lease;
    const afterAsk = stepRequest({ threadId, id: nextId(), parent: input.checkpoint, full: { answer: `a${i}` } });
    const resume = write("__resume__:0", `a${i}`);
    await timed("commit (resume + put)", () =>
      saver.commit({ writes: { ref: paused, writes: resume }, put: afterAsk, lease }),
    );
    const last = stepRequest({ threadId, id: nextId(), parent: afterAsk.checkpoint, full: { done: true } });
    await timed("commit (last put + release)", () => saver.commit({ put: last, lease, release: true }));
  }
  await saver.close();
  spent["all six"] = Object.values(spent).reduce((a, b) => a + b, 0);
  return spent;
}

await main();
