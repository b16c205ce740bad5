/** The SDK 1.x `Client` (1.15) keeps working beside 2.x: a run paused at an interrupt, resumed by value. */
import { Client } from "langgraph-sdk-1";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

it("SDK 1.x: create, wait to the interrupt, resume by value", async () => {
  const client = new Client({ apiUrl: t.url, apiKey: null });
  const thread = await client.threads.create();
  const paused = (await client.runs.wait(thread.thread_id, "ask", { input: { log: [] } })) as {
    __interrupt__?: Array<{ value: unknown }>;
  };
  expect(paused.__interrupt__?.[0]?.value).toEqual({ question: "What is your name?" });
  const done = (await client.runs.wait(thread.thread_id, "ask", { command: { resume: "Ana" } })) as { answer: string };
  expect(done.answer).toBe("Ana");
  expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
});
