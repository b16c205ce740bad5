import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { Command } from "@trellis/core";
import { resumeGraph } from "./workloads/resume.js";

/**
 * What each of the SQLite saver's calls costs in the (e) workload (start → interrupt → resume, one
 * thread after another): for every call the runtime makes, per invoke, its median and mean time and the
 * WAL frames (pages) it wrote, and which table or index each page belongs to. The means carry the WAL
 * checkpoints SQLite runs inside some commits. Two passes after a warm-up: the times with SQLite's
 * defaults, the frames on a second file whose WAL is never checkpointed (its frame headers name the
 * pages; SQLite's `dbstat` table names their owners once the run is over).
 *
 *   node bench/dist/sqlite-calls.js [threads] [NORMAL|FULL]
 */
const FRAME_BYTES = 4096 + 24; // a page and its frame header
const CALLS = ["acquireLeaseAndGet", "put", "putWrites", "commit", "releaseLease", "get"] as const;

type Seen = Map<string, { us: number[]; pages: number[] }>;

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
      const calls = written?.us.length ?? 1;
      const frames = written ? written.pages.length / calls : 0;
      const byOwner = new Map<string, number>();
      for (const page of written?.pages ?? []) {
        const owner = counted.owners.get(page) ?? "?";
        byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
      }
      const owners = [...byOwner]
        .sort((a, b) => b[1] - a[1])
        .map(([owner, n]) => `${owner} ${(n / calls).toFixed(1)}`)
        .join(", ");
      console.log(
        `${key.padEnd(34)} ${(us.length / threads).toFixed(2)} per thread, median ${(sorted[sorted.length >> 1] ?? 0).toFixed(1)} µs, mean ${mean.toFixed(1)} µs, ${frames.toFixed(1)} WAL frames (${owners})`,
      );
    }
    const frames = [...counted.seen.values()].reduce((n, { pages }) => n + pages.length, 0) / threads;
    console.log(
      `per thread: ${timed.perThread.toFixed(0)} µs, ${inSaver.toFixed(0)} µs of it in the saver's calls; ${frames.toFixed(1)} WAL frames`,
    );
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
): Promise<{ seen: Seen; perThread: number; owners: Map<number, string> }> {
  const saver = new SqliteSaver({ filename: file, synchronous });
  if (countFrames) saver.database.pragma("wal_autocheckpoint = 0");
  const wal = countFrames ? walReader(`${file}-wal`) : () => [];
  const seen: Seen = new Map();
  let phase = "";
  const target = saver as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of CALLS) {
    const call = target[name]?.bind(saver);
    if (!call) continue;
    target[name] = async (...args: unknown[]) => {
      wal();
      const t0 = process.hrtime.bigint();
      const out = await call(...args);
      const us = Number(process.hrtime.bigint() - t0) / 1000;
      const key = `${phase} ${name === "commit" ? commitLabel(args[0]) : name}`;
      const entry = seen.get(key) ?? { us: [], pages: [] };
      entry.us.push(us);
      entry.pages.push(...wal());
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
  const owners = new Map<number, string>();
  if (countFrames) {
    for (const row of saver.database.prepare("SELECT name, pageno FROM dbstat").all() as {
      name: string;
      pageno: number;
    }[]) {
      owners.set(row.pageno, row.name === "sqlite_schema" ? "header" : row.name);
    }
  }
  await saver.close();
  return { seen, perThread, owners };
}

/**
 * Reads a WAL file's frames as they are appended: each call returns the page numbers of the frames
 * written since the last one (a frame is a 24-byte header, whose first 4 bytes name the page, and the page).
 */
function walReader(path: string): () => number[] {
  let offset = 32; // the WAL header
  const header = Buffer.alloc(4);
  return () => {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return [];
    }
    try {
      const size = fstatSync(fd).size;
      const pages: number[] = [];
      for (; offset + FRAME_BYTES <= size; offset += FRAME_BYTES) {
        readSync(fd, header, 0, 4, offset);
        pages.push(header.readUInt32BE(0));
      }
      return pages;
    } finally {
      closeSync(fd);
    }
  };
}

function commitLabel(request: unknown): string {
  const r = request as { put?: unknown; writes?: unknown; release?: boolean };
  return `commit(${[r.put && "put", r.writes && "writes", r.release && "release"].filter(Boolean).join("+")})`;
}

await main();
