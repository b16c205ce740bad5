/**
 * The worker half of the {@link CrashDriver}: read the job, talk to the driver, and stop at named
 * points. A kill point SIGKILLs the process itself at that exact instruction, so no other task or
 * saver call can slip in between "reached" and "killed".
 */
import type { WorkerMessage } from "./crash-driver.js";

/**
 * What every worker job may carry besides its own fields.
 *
 * @example
 * const job: PointJob = { killAt: "before-put:3", holdAt: ["mid-superstep"] };
 */
export interface PointJob {
  /** Die (SIGKILL, self-inflicted) on reaching this point. */
  killAt?: string;
  /** Report these points and wait for the driver's `{ type: "continue" }` before going on. */
  holdAt?: string[];
}

/**
 * The job this worker was started with (its first argument, JSON).
 *
 * @example
 * const job = readJob<GraphJob>();
 */
export function readJob<T>(): T {
  return JSON.parse(process.argv[2] ?? "{}") as T;
}

/**
 * Sends a message to the driver (no-op when started without IPC).
 *
 * @example
 * tell({ type: "done", values });
 */
export function tell(message: WorkerMessage): void {
  process.send?.(message);
}

/**
 * Creates the `point(name)` function of a worker: on `killAt` it records the point and SIGKILLs the
 * process; on a `holdAt` point it tells the driver and waits to be continued (the driver may SIGSTOP,
 * SIGTERM or kill it meanwhile). `onReach` runs first for every point (e.g. a ledger entry).
 *
 * @example
 * const point = points(job, (name) => ledger.record("point", name));
 * await point(`in-node:w2:${round}`);
 */
export function points(job: PointJob, onReach?: (name: string) => void): (name: string) => Promise<void> {
  const hold = new Set(job.holdAt ?? []);
  return async (name) => {
    if (name === job.killAt) {
      onReach?.(name);
      process.kill(process.pid, "SIGKILL");
      await new Promise(() => {}); // never resumes: the signal is delivered at once
    }
    if (!hold.has(name)) return;
    onReach?.(name);
    const released = new Promise<void>((resolve) => {
      const onMessage = (m: WorkerMessage) => {
        if (m?.type === "continue" && (m.point === undefined || m.point === name)) {
          process.off("message", onMessage);
          resolve();
        }
      };
      process.on("message", onMessage);
    });
    tell({ type: "point", point: name });
    await released;
  };
}

/**
 * Runs `main`, reporting a failure as `{ type: "error", message, code, name }`, then exits (code 0 or
 * 1) once the last message is out: open pools or clients cannot keep a finished worker alive.
 *
 * @example
 * runWorker(async () => { tell({ type: "done" }); });
 */
export function runWorker(main: () => Promise<void>): void {
  const exit = (code: number) => {
    if (!process.send || !process.connected) process.exit(code);
    // An empty message's callback fires once everything sent before it is out.
    process.send({ type: "exit", code }, () => process.exit(code));
  };
  main().then(
    () => exit(0),
    (error: unknown) => {
      const e = error as { stack?: string; message?: string; code?: string; name?: string };
      tell({ type: "error", message: String(e?.stack ?? e), code: e?.code ?? null, name: e?.name ?? null });
      exit(1);
    },
  );
}
