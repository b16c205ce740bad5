import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { FromWorker, ToWorker } from "./worker.js";
import { RUNTIMES as DEFAULT_RUNTIMES, type Runtime, type Workload } from "./workload.js";

/** What one runtime did on one workload. */
export interface RuntimeResult {
  /** Timed runs, in milliseconds, in the order they ran. */
  samples: number[];
  medianMs: number;
  minMs: number;
  /** Bytes stored by the last run, when the workload has a saver. */
  storedBytes: number | undefined;
  /** JSON size of the final state (measured on the floor's state). */
  stateBytes: number | undefined;
  /** Trials timed back to back per sample (the sample is their mean); 1 for runs of BATCH_MS or more. */
  batch: number;
  /** Peak resident set size of the worker process over all its runs, in bytes. */
  peakRssBytes: number;
  /** Resident set size after loading the workload, before any run, in bytes. */
  baseRssBytes: number;
}

/** One row: a workload and its result per runtime. */
export interface WorkloadResult {
  id: string;
  title: string;
  group: string;
  /** {@link Workload.sameProgramAs}. */
  sameProgramAs?: string;
  saver: string;
  units: { count: number; name: string } | undefined;
  runs: number;
  warmup: number;
  results: Record<Runtime, RuntimeResult>;
}

class Worker {
  readonly #child: ChildProcess;
  #waiting: ((m: FromWorker) => void) | undefined;
  #queue: FromWorker[] = [];
  #exited: string | undefined;

  constructor(workload: string, runtime: Runtime, tmpDir: string) {
    const script = fileURLToPath(new URL("./worker.js", import.meta.url));
    this.#child = fork(script, [workload, runtime, tmpDir], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.#child.on("message", (m: FromWorker) => this.#deliver(m));
    this.#child.on("exit", (code, signal) => {
      this.#exited = `worker ${workload}/${runtime} exited (${signal ?? code})`;
      this.#deliver({ type: "error", message: this.#exited });
    });
  }

  #deliver(m: FromWorker): void {
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting(m);
    } else this.#queue.push(m);
  }

  next(): Promise<FromWorker> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  async request(message: ToWorker): Promise<FromWorker> {
    if (this.#exited) throw new Error(this.#exited);
    this.#child.send(message);
    const reply = await this.next();
    if (reply.type === "error") throw new Error(reply.message);
    return reply;
  }

  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill();
  }
}

/** Each runtime warms up for at least this long (and at least the workload's warmup runs). */
const FULL_WARMUP_MS = 1000;
const QUICK_WARMUP_MS = 250;
/** A sample lasts at least about this long: shorter runs are timed in batches (see the worker). */
const BATCH_MS = 20;
const MAX_BATCH = 50;

function median(values: readonly number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A runtime whose samples last under this many ms is sampled more than once a round (see below). */
const SHORT_SAMPLE_MS = 200;
/** At least this many samples of a short runtime, however few rounds the slowest one allows. */
const MIN_SHORT_SAMPLES = 7;

/**
 * Samples a runtime takes in each round: one, or for a runtime whose samples last under
 * SHORT_SAMPLE_MS, enough for MIN_SHORT_SAMPLES over `rounds` — a workload whose LangGraph.js runs take
 * seconds has 2 or 3 rounds, and a median of 2 samples of a 20 ms run is as noisy as one garbage
 * collection. The extra samples are taken in the same round, before the next runtime's turn.
 */
export function samplesPerRound(sampleMs: number, rounds: number): number {
  if (!(sampleMs > 0) || sampleMs >= SHORT_SAMPLE_MS || rounds >= MIN_SHORT_SAMPLES) return 1;
  return Math.ceil(MIN_SHORT_SAMPLES / Math.max(1, rounds));
}

/** Trials per sample for a run of `medianMs`: enough for a sample of about BATCH_MS. */
export function batchSize(medianMs: number): number {
  if (!(medianMs > 0)) return 1;
  return Math.max(1, Math.min(MAX_BATCH, Math.round(BATCH_MS / medianMs)));
}

/**
 * Runs one workload: a worker process per runtime, each warmed up on its own, then `runs` rounds in
 * which each runtime runs once, the order rotating every round so none always goes first.
 */
export async function runWorkload(
  workload: Workload,
  options: {
    quick: boolean;
    tmpDir: string;
    runs?: number;
    log: (line: string) => void;
    runtimes?: readonly Runtime[];
  },
): Promise<WorkloadResult> {
  const RUNTIMES = options.runtimes ?? DEFAULT_RUNTIMES;
  const runs = options.runs ?? (options.quick ? workload.runs.quick : workload.runs.full);
  const warmup = options.quick ? workload.warmup.quick : workload.warmup.full;
  const workers = new Map(RUNTIMES.map((r) => [r, new Worker(workload.id, r, options.tmpDir)] as const));
  try {
    const base = new Map<Runtime, number>();
    for (const [runtime, worker] of workers) {
      const ready = await worker.next();
      if (ready.type !== "ready") throw new Error(ready.type === "error" ? ready.message : "worker not ready");
      base.set(runtime, ready.rssKb * 1024);
    }
    const warmed: string[] = [];
    const batches = new Map<Runtime, number>();
    const perRound = new Map<Runtime, number>();
    for (const runtime of RUNTIMES) {
      const minMs = options.quick ? QUICK_WARMUP_MS : FULL_WARMUP_MS;
      const reply = await (workers.get(runtime) as Worker).request({ type: "warmup", runs: warmup, minMs });
      const batch = reply.type === "warm" ? batchSize(reply.medianMs) : 1;
      const each = reply.type === "warm" ? samplesPerRound(reply.medianMs * batch, runs) : 1;
      batches.set(runtime, batch);
      perRound.set(runtime, each);
      warmed.push(
        `${runtime} ${reply.type === "warm" ? reply.runs : "?"}${batch > 1 ? ` (timed in batches of ${batch})` : ""}${each > 1 ? ` (${each} samples a round)` : ""}`,
      );
    }
    options.log(`  ${workload.id} warmup runs: ${warmed.join("  ")}`);
    const samples = new Map<Runtime, number[]>(RUNTIMES.map((r) => [r, []]));
    const stored = new Map<Runtime, number | undefined>();
    let stateBytes: number | undefined;
    for (let round = 0; round < runs; round++) {
      const order = RUNTIMES.map((_, i) => RUNTIMES[(i + round) % RUNTIMES.length] as Runtime);
      for (const runtime of order) {
        for (let k = 0; k < (perRound.get(runtime) ?? 1); k++) {
          const batch = batches.get(runtime) ?? 1;
          const reply = await (workers.get(runtime) as Worker).request({ type: "run", batch });
          if (reply.type !== "result") throw new Error(`unexpected ${reply.type}`);
          samples.get(runtime)?.push(reply.ms);
          stored.set(runtime, reply.storedBytes);
          stateBytes ??= reply.stateBytes;
        }
      }
      const line = RUNTIMES.map((r) => `${r} ${(samples.get(r)?.at(-1) ?? Number.NaN).toFixed(1)}`).join("  ");
      options.log(`  ${workload.id} run ${round + 1}/${runs}: ${line} ms`);
    }
    const results = {} as Record<Runtime, RuntimeResult>;
    for (const [runtime, worker] of workers) {
      const stats = await worker.request({ type: "stop" });
      const list = samples.get(runtime) as number[];
      results[runtime] = {
        samples: list,
        medianMs: median(list),
        minMs: Math.min(...list),
        storedBytes: workload.saver === "none" ? undefined : stored.get(runtime),
        stateBytes,
        batch: batches.get(runtime) ?? 1,
        peakRssBytes: stats.type === "stats" ? stats.maxRssKb * 1024 : 0,
        baseRssBytes: base.get(runtime) ?? 0,
      };
    }
    return {
      id: workload.id,
      title: workload.title,
      group: workload.group,
      ...(workload.sameProgramAs ? { sameProgramAs: workload.sameProgramAs } : {}),
      saver: workload.saver,
      units: workload.units,
      runs,
      warmup,
      results,
    };
  } finally {
    for (const worker of workers.values()) worker.kill();
  }
}
