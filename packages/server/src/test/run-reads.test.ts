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

it("a run reads the saver once to start and not at all to finish", async () => {
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
    const accepted = get.mock.calls.length; // the run service reads the pause it binds the resume to
    const ended = await manager.waitFor(run.runId);
    expect(ended?.status).toBe("success"); // paused again, at the approval
    expect(get.mock.calls.length - accepted).toBeLessThanOrEqual(1);
  } finally {
    get.mockRestore();
  }
});
