/**
 * What the per-run server tools share (`count-syncs.ts`, `cpu-per-run.ts`): the two scenarios they
 * measure, and serving one scenario with a server started under a command that measures it (strace,
 * `/usr/bin/time`). Each tool serves `runs` and then `runs × 3` and prints the difference per run.
 */
import { hitlLatencies, runsPerSecond } from "./scenarios.js";
import { type ServerKind, startTarget } from "./targets.js";

/** (i) one conversation at a time; (ii) one stateless `POST /runs/wait` at 1 in flight. */
export const PER_RUN_SCENARIOS: Record<string, (url: string, n: number) => Promise<void>> = {
  "(i) conversation": async (url, n) => {
    await hitlLatencies(url, n);
  },
  "(ii) stateless run": async (url, n) => {
    await runsPerSecond(url, 1, n);
  },
};

/**
 * Starts a server of `kind` under `tracer` (a command prefix, see `startTarget`), runs `work` against
 * it and stops it, whatever `work` does: the tracer writes its report when the server exits.
 *
 * @example
 * await serveUnder("trellis", tmp, ["/usr/bin/time", "-f", "%U %S", "-o", file], (url) => hitlLatencies(url, 10));
 */
export async function serveUnder(
  kind: ServerKind,
  tmp: string,
  tracer: string[],
  work: (url: string) => Promise<void>,
): Promise<void> {
  const target = await startTarget(kind, tmp, undefined, tracer);
  try {
    await work(target.url);
  } finally {
    await target.stop();
  }
}
