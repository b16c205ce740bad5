/**
 * A worker process for sqlite-processes.test.ts, run with tsx: takes turns on one thread of a shared
 * SQLite file through the lease, appending `rounds` checkpoints, each the child of the latest.
 */
import { LeaseError } from "@trellis/checkpoint";
import { putStep } from "@trellis/checkpoint/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";

const { filename, threadId, owner, rounds } = JSON.parse(process.argv[2] ?? "{}") as {
  filename: string;
  threadId: string;
  owner: string;
  rounds: number;
};

const saver = new SqliteSaver({ filename, busyTimeoutMs: 10_000 });
// Start together with the other workers: wait for the parent's "go".
await new Promise<void>((resolve) => {
  process.once("message", () => resolve());
  process.send?.({ type: "ready" });
});
let busy = 0;
for (let done = 0; done < rounds; ) {
  let lease: Awaited<ReturnType<typeof saver.acquireLease>>;
  try {
    lease = await saver.acquireLease(threadId, owner, 60_000);
  } catch (error) {
    if (!(error instanceof LeaseError) || error.code !== "THREAD_BUSY") throw error;
    busy++;
    await new Promise((resolve) => setTimeout(resolve, 1));
    continue;
  }
  // Hold the thread a moment, as a real superstep would, so the other workers run into the lease.
  await new Promise((resolve) => setTimeout(resolve, 2));
  const head = await saver.get({ threadId });
  if (!head) throw new Error("the thread has no root checkpoint");
  // Ids from the step: strictly increasing along the chain, whichever process writes.
  const id = `${String(head.checkpoint.step + 2).padStart(8, "0")}-${owner}`;
  await putStep(saver, { threadId, id, parent: head.checkpoint, append: { log: [`${owner}:${done}`] }, lease });
  await saver.releaseLease(lease);
  done++;
}
await saver.close();
process.send?.({ type: "done", busy });
process.disconnect?.();
