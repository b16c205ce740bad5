import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** A message a worker sends over IPC: `{ type, ...data }`. */
export interface WorkerMessage {
  type: string;
  [key: string]: unknown;
}

/** How a worker process ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * A worker process started by the {@link CrashDriver}: its messages, its end, and the signals the
 * driver can send it.
 */
export interface WorkerHandle {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every message received so far, in order. */
  readonly messages: readonly WorkerMessage[];
  /** Settles when the process has ended. */
  readonly exit: Promise<WorkerExit>;
  /**
   * The first message of `type` (already received or still to come). Rejects when the worker reports
   * `{ type: "error" }`, exits first, or sends nothing within `timeoutMs` (default 30 s).
   */
  next(type: string, timeoutMs?: number): Promise<WorkerMessage>;
  /** Sends a message to the worker (e.g. `{ type: "continue" }` after a held point). */
  send(message: WorkerMessage): void;
  /** Sends `signal` unless the process has ended. */
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL, then the exit. */
  kill(): Promise<WorkerExit>;
}

/** Options of {@link CrashDriver}. */
export interface CrashDriverOptions {
  /** The worker script: a `.ts` file run with tsx and the `@trellis/source` condition. */
  script: string | URL;
  /** Extra environment for every worker. */
  env?: Record<string, string>;
  /** Let workers write to the test's stdout/stderr (default true). */
  inheritOutput?: boolean;
}

const tsx = createRequire(import.meta.url).resolve("tsx");

/**
 * Forks worker processes and kills them: SIGKILL at a random moment or when a worker reports a named
 * point, SIGSTOP/SIGCONT, SIGTERM. Keeps track of every process it started so a test can end them all
 * in `afterAll` even when it fails half-way; it only ever signals its own children, by pid.
 *
 * @example
 * const driver = new CrashDriver({ script: new URL("./workers/graph-worker.ts", import.meta.url) });
 * const w = driver.start({ mode: "run", killAt: "mid-superstep" });
 * expect((await w.exit).signal).toBe("SIGKILL");
 * await driver.dispose();
 */
export class CrashDriver {
  readonly #script: string;
  readonly #env: Record<string, string>;
  readonly #inherit: boolean;
  readonly #live = new Set<WorkerHandle>();
  /** Workers started so far. */
  started = 0;
  /** Workers this driver killed with SIGKILL. */
  killed = 0;

  constructor(options: CrashDriverOptions) {
    this.#script = typeof options.script === "string" ? options.script : fileURLToPath(options.script);
    this.#env = options.env ?? {};
    this.#inherit = options.inheritOutput ?? true;
  }

  /** Starts a worker with `job` (JSON) as its only argument. */
  start(job: unknown): WorkerHandle {
    const child = fork(this.#script, [JSON.stringify(job)], {
      execArgv: ["--conditions=@trellis/source", "--import", tsx],
      env: { ...process.env, ...this.#env },
      stdio: this.#inherit ? ["ignore", "inherit", "inherit", "ipc"] : ["ignore", "ignore", "pipe", "ipc"],
    });
    this.started++;
    const handle = wrap(child, () => this.killed++);
    this.#live.add(handle);
    void handle.exit.then(() => this.#live.delete(handle));
    return handle;
  }

  /**
   * Starts a worker and SIGKILLs it after a random delay in `[minMs, maxMs)` (unless it ended before).
   * Resolves with its exit and whether the kill happened.
   *
   * @example
   * const { killed } = await driver.killRandomly(job, { minMs: 50, maxMs: 800, random });
   */
  async killRandomly(
    job: unknown,
    options: { minMs: number; maxMs: number; random?: () => number },
  ): Promise<{ exit: WorkerExit; killed: boolean; handle: WorkerHandle }> {
    const handle = this.start(job);
    const random = options.random ?? Math.random;
    const delay = options.minMs + Math.floor(random() * Math.max(1, options.maxMs - options.minMs));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      void handle.kill();
    }, delay);
    const exit = await handle.exit;
    clearTimeout(timer);
    return { exit, killed: killed && exit.signal === "SIGKILL", handle };
  }

  /** Workers still running. */
  get live(): number {
    return this.#live.size;
  }

  /** SIGKILLs every worker still running and waits for them. */
  async dispose(): Promise<void> {
    await Promise.all([...this.#live].map((h) => h.kill()));
  }
}

function wrap(child: ChildProcess, onKill: () => void): WorkerHandle {
  const messages: WorkerMessage[] = [];
  const listeners = new Set<() => void>();
  let ended: WorkerExit | undefined;
  child.on("message", (message: WorkerMessage) => {
    messages.push(message);
    for (const l of [...listeners]) l();
  });
  const exit = new Promise<WorkerExit>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = { code, signal };
      resolve(ended);
      for (const l of [...listeners]) l();
    });
  });
  const alive = () => ended === undefined && child.exitCode === null && child.signalCode === null;
  const handle: WorkerHandle = {
    child,
    pid: child.pid ?? -1,
    messages,
    exit,
    next(type, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find((m) => m.type === type);
          const failed = messages.find((m) => m.type === "error");
          if (found) return finish(() => resolve(found));
          if (failed) return finish(() => reject(new Error(`worker ${child.pid} failed: ${String(failed.message)}`)));
          if (ended) {
            return finish(() =>
              reject(new Error(`worker ${child.pid} exited (${ended?.code}, ${ended?.signal}) before "${type}"`)),
            );
          }
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`worker ${child.pid} sent no "${type}" within ${timeoutMs} ms`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    send(message) {
      if (alive() && child.connected) child.send(message);
    },
    signal(signal) {
      if (alive()) child.kill(signal);
    },
    async kill() {
      if (alive()) {
        onKill();
        child.kill("SIGKILL");
      }
      return exit;
    },
  };
  return handle;
}
