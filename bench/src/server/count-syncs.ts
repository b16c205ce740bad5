/**
 * Disk syncs per request, counted with strace on the server process (Linux, strace installed): the
 * number the server bench's latencies follow on a machine whose disk syncs dominate, and one that does
 * not move with the machine's load. Usage (after `npm run build`):
 *
 *   node bench/dist/server/count-syncs.js [runs]        # default 50
 *
 * For each server (Trellis, its floor) and each scenario — (i) one conversation (create a thread, run to
 * the first interrupt, two resumes), (ii) one stateless `POST /runs/wait` — it starts the server under
 * `strace -f -c -e trace=fsync,fdatasync,pwrite64` twice, once serving `runs` and once `runs × 3`, and
 * prints the difference per run, so start-up and shut-down syncs cancel out.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PER_RUN_SCENARIOS, serveUnder } from "./per-run.js";
import type { ServerKind } from "./targets.js";

type Counts = Record<"fsync" | "fdatasync" | "pwrite64", number>;

/** The calls column of `strace -c`'s summary, by syscall. */
function parseSummary(text: string): Counts {
  const counts: Counts = { fsync: 0, fdatasync: 0, pwrite64: 0 };
  for (const line of text.split("\n")) {
    const cols = line.trim().split(/\s+/);
    const name = cols.at(-1) as keyof Counts;
    if (name in counts && cols.length >= 5) counts[name] = Number(cols[3]);
  }
  return counts;
}

async function traced(kind: ServerKind, tmp: string, work: (url: string) => Promise<void>): Promise<Counts> {
  const out = join(tmp, `${kind}-${Date.now()}.strace`);
  await serveUnder(kind, tmp, ["strace", "-f", "-c", "-o", out, "-e", "trace=fsync,fdatasync,pwrite64"], work);
  return parseSummary(readFileSync(out, "utf8"));
}

const runs = Number(process.argv[2] ?? 50);
const tmp = mkdtempSync(join(tmpdir(), "trellis-count-syncs-"));
try {
  console.log(`| scenario | server | fsync + fdatasync per run | pwrite64 per run |`);
  console.log(`|---|---|---:|---:|`);
  for (const [name, scenario] of Object.entries(PER_RUN_SCENARIOS)) {
    for (const kind of ["trellis", "floor"] as const) {
      const few = await traced(kind, tmp, (url) => scenario(url, runs));
      const many = await traced(kind, tmp, (url) => scenario(url, runs * 3));
      const per = (k: keyof Counts) => (many[k] - few[k]) / (runs * 2);
      console.log(
        `| ${name} | ${kind} | ${(per("fsync") + per("fdatasync")).toFixed(2)} | ${per("pwrite64").toFixed(1)} |`,
      );
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
