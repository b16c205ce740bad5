/**
 * The server process's CPU time per request, measured with `/usr/bin/time` around the server process:
 * the cost the bench's latencies follow once disk syncs are few, and one that moves less with the
 * machine's load than wall time. Usage (after `npm run build`):
 *
 *   node bench/dist/server/cpu-per-run.js [runs]        # default 100
 *
 * For each scenario — (i) one conversation, (ii) one stateless `POST /runs/wait` at 1 in flight — and
 * each server (Trellis, its floor) it starts the server twice, serving `runs` and then `runs × 3`, and
 * prints the difference of user + system CPU per run, so start-up and shut-down cancel out.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PER_RUN_SCENARIOS, serveUnder } from "./per-run.js";
import type { ServerKind } from "./targets.js";

/** User + system seconds of the server process, as `/usr/bin/time -f "%U %S"` wrote them. */
async function cpuSeconds(kind: ServerKind, tmp: string, work: (url: string) => Promise<void>): Promise<number> {
  const out = join(tmp, `${kind}-${Date.now()}.time`);
  await serveUnder(kind, tmp, ["/usr/bin/time", "-f", "%U %S", "-o", out], work);
  const [user = 0, system = 0] = readFileSync(out, "utf8").trim().split("\n").at(-1)?.split(" ").map(Number) ?? [];
  return user + system;
}

const runs = Number(process.argv[2] ?? 100);
const tmp = mkdtempSync(join(tmpdir(), "trellis-cpu-per-run-"));
try {
  console.log("| scenario | server | CPU ms per run (user + sys) |");
  console.log("|---|---|---:|");
  for (const [name, scenario] of Object.entries(PER_RUN_SCENARIOS)) {
    for (const kind of ["trellis", "floor"] as const) {
      const few = await cpuSeconds(kind, tmp, (url) => scenario(url, runs));
      const many = await cpuSeconds(kind, tmp, (url) => scenario(url, runs * 3));
      console.log(`| ${name} | ${kind} | ${(((many - few) / (runs * 2)) * 1000).toFixed(2)} |`);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
