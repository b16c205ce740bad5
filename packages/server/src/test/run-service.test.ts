/**
 * The run service as apps meet it (`ctx.runs` / `server.runs`): a double-sent first message, and the
 * error of a refused run carrying what the app needs to answer.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TEST_GRAPHS, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    graphs: {
      ...TEST_GRAPHS,
      "interview-reject": { module: "./src/test/fixture-interview.ts", graph: "rejectInterview" },
    },
  });
});
afterAll(async () => {
  await t.close();
});

const say = (content: string) => ({ messages: [{ role: "user", content }] });

describe("RunService", () => {
  it("two first messages on a new thread id at once make one thread, and both runs are accepted", async () => {
    const threadId = randomUUID();
    const runs = await Promise.all(
      ["hi", "hello"].map((text) =>
        t.server.runs.start({
          assistantId: "interview-reject",
          threadId,
          as: "app",
          input: say(text),
          multitaskStrategy: "enqueue",
        }),
      ),
    );
    expect(new Set(runs.map((r) => r.threadId))).toEqual(new Set([threadId]));
    const ends = await Promise.all(runs.map((r) => t.server.runs.wait(r.runId)));
    // the first paused on its question; the second, queued behind it, met the graph's reject policy
    expect(ends.map((e) => e.status).sort()).toEqual(["error", "success"]);
    expect(ends.map((e) => e.paused).sort()).toEqual([false, true]);
    expect((await t.server.store.searchThreads({ ids: [threadId], limit: 10, offset: 0 })).length).toBe(1);
  });

  it("a run refused at its turn keeps the error's details; errorOf makes the TrellisError to answer with", async () => {
    const threadId = randomUUID();
    const first = await t.server.runs.start({ assistantId: "interview-reject", threadId, as: "app", input: say("hi") });
    // queued before the first paused, so only its turn can tell that the thread waits for an answer
    const second = await t.server.runs.start({
      assistantId: "interview-reject",
      threadId,
      as: "app",
      input: say("hello?"),
      multitaskStrategy: "enqueue",
    });
    const paused = await t.server.runs.wait(first.runId);
    expect(t.server.runs.errorOf(paused)).toBeUndefined();
    const refused = await t.server.runs.wait(second.runId);
    const error = t.server.runs.errorOf(refused);
    expect(error?.code).toBe("THREAD_PAUSED");
    const pending =
      (error?.details as { interrupts?: Array<{ id: string; value: unknown }> } | undefined)?.interrupts ?? [];
    expect(pending.map((i) => i.value)).toEqual([{ question: "Your name?" }]);
    expect(pending[0]?.id).toBe(paused.interrupts[0]?.id);
    // refused, it changed nothing: the thread still waits on the same question
    expect((await t.server.store.getThread(threadId))?.status).toBe("interrupted");
  });
});
