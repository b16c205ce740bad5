/** What the run store conformance cases build on: a thread, a queued run, a claim, an attempt's records. */
import { randomUUID } from "node:crypto";
import { newRunRecord } from "../runs/run-manager.js";
import type {
  AttemptEnd,
  AttemptStart,
  MultitaskStrategy,
  RunRecord,
  RunStore,
  ThreadRecord,
} from "../stores/run-store.js";

/** A new idle thread with its own id. */
export async function newThread(store: RunStore, patch: Partial<ThreadRecord> = {}): Promise<string> {
  const threadId = patch.threadId ?? randomUUID();
  const now = new Date().toISOString();
  await store.createThread(
    {
      threadId,
      createdAt: now,
      updatedAt: now,
      metadata: {},
      status: "idle",
      owner: null,
      graphId: null,
      error: null,
      ...patch,
    },
    "raise",
  );
  return threadId;
}

/** Queues a run on the thread under `strategy`. */
export async function enqueue(
  store: RunStore,
  threadId: string,
  strategy: MultitaskStrategy = "enqueue",
  owner: string | null = null,
): Promise<RunRecord> {
  const run = newRunRecord({
    runId: randomUUID(),
    threadId,
    assistantId: "slow",
    metadata: {},
    kwargs: {
      input: {},
      command: null,
      config: {},
      streamMode: ["values"],
      streamSubgraphs: false,
      interruptBefore: null,
      interruptAfter: null,
      checkpointId: null,
      durability: null,
    },
    multitaskStrategy: strategy,
    owner,
  });
  await store.enqueueRun(run, strategy);
  return run;
}

/** Claims until `runId` comes up (other tests' runs may be queued in the same store). */
export async function claim(store: RunStore, worker: string, runId: string): Promise<RunRecord> {
  for (let i = 0; i < 100; i++) {
    const run = await store.claimNext(worker);
    if (!run) break;
    if (run.runId === runId) return run;
  }
  throw new Error(`run ${runId} was not claimed`);
}

/** An attempt's start record. */
export const start = (graphId = "slow", events = [{ event: "metadata", data: {} }]): AttemptStart => ({
  preCheckpointId: null,
  preWriteCount: 0,
  graphId,
  events,
});

/** A successful attempt's end record. */
export const done: AttemptEnd = { status: "success", error: null, threadStatus: "idle", events: [] };
