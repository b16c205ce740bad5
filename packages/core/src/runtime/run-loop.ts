import { LeaseError, TrellisError } from "@trellis/checkpoint";
import { RunCancelledError } from "../errors.js";
import { ParentCommand } from "./command.js";
import { type LoopRequest, RunContext } from "./run-context.js";
import { applyInput } from "./run-input.js";
import { loadState, startTracing, takeLease } from "./run-load.js";
import type { RunOutcome } from "./run-outcome.js";
import { runSupersteps } from "./superstep-loop.js";
import type { ThreadState } from "./thread-state.js";
import { countRunUsage } from "./usage.js";

export type { RunOutcome } from "./run-outcome.js";

/**
 * Runs a graph until it ends, pauses or fails. A run goes through its phases in order: the lease and
 * the thread's head (`run-load.ts`), the input (`run-input.ts`), the supersteps (`superstep-loop.ts`,
 * a step that did not finish settled by `step-settle.ts`), and its outcome (`run-outcome.ts`); what
 * they share is a {@link RunContext}. @internal
 */
export function runLoop(request: LoopRequest): Promise<RunOutcome> {
  if (request.parent) return execute(new RunContext(request));
  return countRunUsage(() => execute(new RunContext(request)));
}

/** Links the caller's and the parent's signals to the run's for as long as it runs. */
async function execute(run: RunContext): Promise<RunOutcome> {
  if (run.signal.aborted) throw new RunCancelledError(run.threadId, run.signal.reason);
  const signals = run.followedSignals();
  // Removed when the run ends: a long-lived signal (a server's, a parent run's over many subgraph
  // calls) would otherwise collect one listener per run, and keep every finished run alive.
  const listeners: Array<[AbortSignal, () => void]> = [];
  try {
    for (const s of signals) {
      if (s.aborted) throw new RunCancelledError(run.threadId, s.reason);
      const onAbort = () => run.abort(s.reason);
      s.addEventListener("abort", onAbort, { once: true });
      listeners.push([s, onAbort]);
    }
    return await executePhases(run);
  } finally {
    for (const [s, onAbort] of listeners) s.removeEventListener("abort", onAbort);
  }
}

async function executePhases(run: RunContext): Promise<RunOutcome> {
  // The lease, and with a saver that can, the thread's checkpoint read in the same transaction.
  const loaded = await takeLease(run);
  let state: ThreadState | undefined;
  const startTime = Date.now();
  try {
    state = await loadState(run, loaded);
    run.tracing = startTracing(run, state, startTime);
    const continuing = await applyInput(run, state);
    const outcome = await runSupersteps(run, state, continuing);
    await run.writer.finish(state);
    run.tracing?.end(outcome);
    return outcome;
  } catch (error) {
    (run.tracing ?? startTracing(run, state, startTime))?.end({ error });
    // A thread that never got its first checkpoint (the input or Command was refused) stays empty.
    const started = state && (state.stored || state.checkpoint.step > -2);
    if (state && started) await run.writer.finish(state).catch(() => undefined);
    if (run.signal.aborted && !(error instanceof ParentCommand)) {
      const reason: unknown = run.signal.reason;
      if (reason instanceof LeaseError) throw reason; // the lease was lost: LEASE_LOST, not a cancel
      throw error instanceof TrellisError && error.code === "RUN_CANCELLED"
        ? error
        : new RunCancelledError(run.threadId, reason);
    }
    throw error;
  } finally {
    await run.lease?.release();
  }
}
