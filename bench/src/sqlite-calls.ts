import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { Command } from "@trellis/core";
import { resumeGraph } from "./workloads/resume.js";

/**
 * What each of the SQLite saver's calls costs in the (e) workload (start → interrupt → resume, one
 * thread after another): for every call the runtime makes, per invoke, its median and mean time and the
 * WAL frames (pages) it wrote. The means carry the WAL checkpoints SQLite runs inside some commits. Two
 * passes after a warm-up: the times with SQLite's defaults, the frames on a second file whose WAL is
 * never checkpointed (so its size counts them).
 *
 *   node bench/dist/sqlite-calls.js [threads] [NORMAL|FULL]
 */
const FRAME_BYTES = 4096 + 24; // a page and its frame header
const CALLS = ["acquireLeaseAndGet", "put", "putWrites", "commit", "releaseLease", "get"] as const;

type Seen = Map<string, { us: number[]; frames: number }>;

async function main(): Promise<void> {
  const threads = Number.parseInt(process.argv[2] ?? "1000", 10);
  const synchronous = process.argv[3] === "FULL" ? "FULL" : "NORMAL";
  const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-calls-"));
  try {
    await measure(join(dir, "warm-up.sqlite"), threads, synchronous, false); // compiled before it is timed
    const timed = await measure(join(dir, "timed.sqlite"), threads, synchronous, false);
    const counted = await measure(join(dir, "counted.sqlite"), threads, synchronous, true);
    console.log(`SQLite ${synchronous}, ${threads} threads: the saver's calls per invoke`);
    let inSaver = 0;
    for (const [key, { us }] of timed.seen) {
      const sorted = us.slice().sort((a, b) => a - b);
      const mean = us.reduce((a, b) => a + b, 0) / us.length;
      inSaver += (mean * us.length) / threads;
      const written = counted.seen.get(key);
      const frames = written ? written.frames / written.us.length : 0;
      console.log(
        `${key.padEnd(34)} ${(us.length / threads).toFixed(2)} per thread, median ${(sorted[sorted.length >> 1] ?? 0).toFixed(1)} µs, mean ${mean.toFixed(1)} µs, ${frames.toFixed(1)} WAL frames`,
      );
    }
    console.log(`per thread: ${timed.perThread.toFixed(0)} µs, ${inSaver.toFixed(0)} µs of it in the saver's calls`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the workload on a fresh file and records each saver call; `countFrames`: never checkpoint the WAL. */
async function measure(
  file: string,
  threads: number,
  synchronous: "NORMAL" | "FULL",
  countFrames: boolean,
): Promise<{ seen: Seen; perThread: number }> {
  const saver = new SqliteSaver({ filename: file, synchronous });
  if (countFrames) saver.database.pragma("wal_autocheckpoint = 0");
  const frames = () => {
    try {
      return (statSync(`${file}-wal`).size - 32) / FRAME_BYTES;
    } catch {
      return 0;
    }
  };
  const seen: Seen = new Map();
  let phase = "";
  const target = saver as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of CALLS) {
    const call = target[name]?.bind(saver);
    if (!call) continue;
    target[name] = async (...args: unknown[]) => {
      const f0 = frames();
      const t0 = process.hrtime.bigint();
      const out = await call(...args);
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      const key = `${phase} ${name === "commit" ? commitLabel(args[0]) : name}`;
      const entry = seen.get(key) ?? { us: [], frames: 0 };
      entry.us.push(us);
      entry.frames += frames() - f0;
      seen.set(key, entry);
      return out;
    };
  }
  const graph = resumeGraph().compile({ checkpointer: saver as CheckpointSaver });
  const started = performance.now();
  for (let i = 0; i < threads; i++) {
    phase = "start ";
    await graph.invoke({ question: `q${i}` }, { threadId: `thread-${i}` });
    phase = "resume";
    await graph.invoke(new Command({ resume: `a${i}` }), { threadId: `thread-${i}` });
  }
  const perThread = ((performance.now() - started) * 1000) / threads;
  await saver.close();
  return { seen, perThread };
}

function commitLabel(request: unknown): string {
  const r = request as { put?: unknown; writes?: unknown; release?: boolean };
  return `commit(${[r.put && "put", r.writes && "writes", r.release && "release"].filter(Boolean).join("+")})`;
}

await main();
