/**
 * What a resumed run costs in saver transactions over HTTP: with a saver that folds them
 * (`acquireLeaseAndGet`, `commit`: SQLite here), the attempt's fenced saver passes the folds through, so
 * the run takes its lease with its first read and gives it back with its last write — no lease
 * transactions of their own — and the thread is free the moment the answer comes.
 */
import type { CheckpointSaver } from "@trellis/checkpoint";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};

it("a resume over HTTP takes and gives back its lease inside checkpoint transactions", async () => {
  // the server's SQLite saver has the folds: spied on as a saver that has them
  const saver = t.server.saver as Required<CheckpointSaver>;
  const thread = await post("/threads", {});
  const threadId = String(thread.thread_id);
  // a thread paused at its review, so the measured run resumes a stored checkpoint
  await post(`/threads/${threadId}/runs/wait`, { assistant_id: "approval-flow", input: { request: "lockout" } });
  const spies = {
    acquireLease: vi.spyOn(saver, "acquireLease"),
    releaseLease: vi.spyOn(saver, "releaseLease"),
    acquireLeaseAndGet: vi.spyOn(saver, "acquireLeaseAndGet"),
    commit: vi.spyOn(saver, "commit"),
  };
  try {
    const values = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "approval-flow",
      command: { resume: "add PPE" },
    });
    expect(values).toHaveProperty("__interrupt__"); // paused again, at the approval
    expect(spies.acquireLeaseAndGet).toHaveBeenCalledTimes(1);
    expect(spies.commit.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(spies.acquireLease).not.toHaveBeenCalled();
    expect(spies.releaseLease).not.toHaveBeenCalled();
  } finally {
    for (const spy of Object.values(spies)) spy.mockRestore();
  }
  // given back with the last commit: another writer takes the thread at once
  const lease = await saver.acquireLease(threadId, "someone-else", 1_000);
  expect(lease.owner).toBe("someone-else");
  await saver.releaseLease(lease);
});
