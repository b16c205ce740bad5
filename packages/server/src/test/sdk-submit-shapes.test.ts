/**
 * Request shapes that LangGraph's own clients send: `useStream().submit({}, { command })` (an empty
 * input with every command) and `stream_mode: []` (a component that has read no mode yet).
 */
import { expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, course: { module: "./src/test/fixture-interview.ts", graph: "nestedQuiz" } },
});

it("an empty input together with a command is the command alone", async () => {
  const thread = await server.client.threads.create();
  await server.client.runs.wait(thread.thread_id, "ask", { input: { log: [] } });
  const done = (await server.client.runs.wait(thread.thread_id, "ask", { input: {}, command: { resume: "Ana" } })) as {
    answer: string;
  };
  expect(done.answer).toBe("Ana");
  // a real input and a command together stay ambiguous
  await expect(
    server.client.runs.wait(thread.thread_id, "ask", { input: { log: ["x"] }, command: { resume: "Bo" } }),
  ).rejects.toThrow(/400.*not both/s);
});

it("stream_mode [] streams values, and the interrupt reaches the client", async () => {
  const thread = await server.client.threads.create();
  const events: Array<{ event: string; data: unknown }> = [];
  for await (const e of server.client.runs.stream(thread.thread_id, "ask", { input: { log: [] }, streamMode: [] })) {
    events.push(e as { event: string; data: unknown });
  }
  const values = events.filter((e) => e.event === "values");
  expect(values.length).toBeGreaterThan(0);
  expect(JSON.stringify(values.at(-1)?.data)).toMatch(/__interrupt__/);
});

it("a run adds graph_id and assistant_id to a thread made with threads.create, so threads.search finds it", async () => {
  const thread = await server.client.threads.create({ metadata: { topic: "names" } });
  await server.client.runs.wait(thread.thread_id, "ask", { input: { log: [] } });
  const metadata = (await server.client.threads.get(thread.thread_id)).metadata as Record<string, unknown>;
  expect(metadata).toMatchObject({ topic: "names", graph_id: "ask", assistant_id: "ask" });
  const found = await server.client.threads.search({ metadata: { graph_id: "ask" }, limit: 1000 });
  expect(found.map((th) => th.thread_id)).toContain(thread.thread_id);
});

it("getSubgraphs lists a graph's subgraphs by namespace, nested ones with recurse", async () => {
  const top = await server.client.assistants.getSubgraphs("course");
  expect(Object.keys(top)).toEqual(["quiz"]);
  expect(Object.keys((top.quiz as { state_schema: { properties: object } }).state_schema.properties)).toEqual([
    "score",
    "asked",
  ]);
  expect(Object.keys(await server.client.assistants.getSubgraphs("course", { recurse: true }))).toEqual([
    "quiz",
    "quiz|grading",
  ]);
  expect(Object.keys(await server.client.assistants.getSubgraphs("course", { namespace: "quiz" }))).toEqual(["quiz"]);
});

it("threads.copy makes an independent thread with the same state, history and pending interrupt", async () => {
  const { client } = server;
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "approval-flow", { input: { request: "lockout" } });
  const original = await client.threads.getState(thread.thread_id);
  const copy = await client.threads.copy(thread.thread_id);
  expect(copy.thread_id).not.toBe(thread.thread_id);
  expect((copy.metadata as Record<string, unknown>).graph_id).toBe("approval-flow");
  const copied = await client.threads.getState(copy.thread_id);
  expect(copied.values).toEqual(original.values);
  expect(copied.next).toEqual(["review"]);
  expect(copied.tasks[0]?.interrupts.map((i) => i.value)).toEqual(original.tasks[0]?.interrupts.map((i) => i.value));
  const history = async (id: string) => (await client.threads.getHistory(id, { limit: 100 })).length;
  expect(await history(copy.thread_id)).toBe(await history(thread.thread_id));
  // the copy goes on alone: answering it leaves the original paused where it was
  await client.runs.wait(copy.thread_id, "approval-flow", { command: { resume: "add PPE" } });
  expect((await client.threads.getState(copy.thread_id)).next).toEqual(["approve"]);
  expect((await client.threads.getState(thread.thread_id)).next).toEqual(["review"]);
});

it("command with update and resume: the review edits the state while answering the pause", async () => {
  const { client } = server;
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "approval-flow", { input: { request: "lockout" } });
  const paused = await client.threads.getState(thread.thread_id);
  const edited = `${(paused.values as { draft: string }).draft} [edited by the reviewer]`;
  const next = (await client.runs.wait(thread.thread_id, "approval-flow", {
    command: { update: { draft: edited }, resume: "" },
  })) as { draft: string; __interrupt__?: Array<{ value: { draft: string } }> };
  // the review saw the edited draft and had no changes; the approval shows what the reviewer edited
  expect(next.__interrupt__?.[0]?.value.draft).toBe(edited);
});
