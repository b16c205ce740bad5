/**
 * What a run costs in saver reads: the executor learns how the run ended from the stream's outcome,
 * not by reading the thread again.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

it("a resumed run reads the saver three times in all and not at all to finish", async () => {
  const { runs, manager, saver } = t.server;
  // a thread paused at its review, so the measured run resumes a stored checkpoint
  const first = await runs.start({ assistantId: "approval-flow", as: "app", input: { request: "lockout" } });
  await manager.waitFor(first.runId);
  const get = vi.spyOn(saver, "get");
  try {
    const run = await runs.start({
      assistantId: "approval-flow",
      threadId: first.threadId,
      as: "app",
      command: { resume: "add PPE" },
    });
    const ended = await manager.waitFor(run.runId);
    expect(ended?.status).toBe("success"); // paused again, at the approval
    // the run service reads the pause it binds the resume to; the executor records the thread's head
    // before the run (for rollback); the run loads it again under the thread's lease. The end is learnt
    // from the stream's outcome: no read. (Whether the executor's read happens before runs.start
    // returns depends on timing, so the three are counted together.)
    expect(get.mock.calls.length).toBeLessThanOrEqual(3);
  } finally {
    get.mockRestore();
  }
});
