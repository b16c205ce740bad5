/**
 * Typed state over the Agent Server API, driven by the official SDK `Client` (issue 21): getSchemas
 * returns the graph's JSON Schema; an input, updateState or resume value that breaks a declared schema
 * is a 400 naming the key, and nothing is written.
 */
import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, typed: { module: "./src/test/fixture-typed.ts", graph: "typedGraph" } },
});

describe("typed state over the Agent Server API", () => {
  it("getSchemas returns real JSON Schema for input, state, config and context", async () => {
    const schemas = await server.client.assistants.getSchemas("typed");
    expect(schemas.input_schema).toMatchObject({
      type: "object",
      title: "typed",
      properties: {
        topic: { default: "" },
        channel: { type: "string", enum: ["teams", "slack"], default: "teams" },
        revisions: { type: "integer", minimum: 0, default: 0 },
        approved: { default: false },
      },
    });
    expect(schemas.state_schema).toEqual(schemas.input_schema);
    expect(schemas.config_schema).toMatchObject({ properties: { tone: { enum: ["formal", "casual"] } } });
    expect(schemas.context_schema).toMatchObject({ properties: { user_id: { type: "string" } } });
  });

  it("an input that breaks a key's schema is a 400 naming the key; the thread stays empty", async () => {
    const thread = await server.client.threads.create();
    const error = await server.client.runs
      .wait(thread.thread_id, "typed", { input: { topic: "t", channel: "whatsapp" } })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/400/);
    expect((error as Error).message).toMatch(/INVALID_STATE.*state key \\?"channel\\?" to \\?"whatsapp/s);
    const state = await server.client.threads.getState(thread.thread_id);
    expect(state.checkpoint?.checkpoint_id ?? null).toBeNull();
    expect(await server.client.runs.list(thread.thread_id)).toHaveLength(0);
  });

  it("updateState with a value the schema refuses is a 400 naming the key; the state is unchanged", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "typed", { input: { topic: "t", revisions: 1 } });
    const before = await server.client.threads.getState(thread.thread_id);
    await expect(server.client.threads.updateState(thread.thread_id, { values: { revisions: "abc" } })).rejects.toThrow(
      /400.*revisions/s,
    );
    const after = await server.client.threads.getState(thread.thread_id);
    expect(after.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(after.values).toMatchObject({ revisions: 1 });
  });

  it("the issue's example: approval-flow's updateState revisions 'abc' (stored as '0abc' before) is a 400", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "approval-flow", { input: { request: "press" } });
    await expect(server.client.threads.updateState(thread.thread_id, { values: { revisions: "abc" } })).rejects.toThrow(
      /400.*state key \\?"revisions\\?" to \\?"0abc/s,
    );
    const state = await server.client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ revisions: 0 });
    expect(state.next).toEqual(["review"]);
  });

  it("a resume that breaks the node's resumeSchema is a 400; the thread stays paused and a good answer goes on", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "typed", { input: { topic: "t" } });
    await expect(
      server.client.runs.wait(thread.thread_id, "typed", { command: { resume: { approved: "yes" } } }),
    ).rejects.toThrow(/400.*approved must be true or false/s);
    const paused = await server.client.threads.getState(thread.thread_id);
    expect(paused.next).toEqual(["review"]);
    const done = await server.client.runs.wait(thread.thread_id, "typed", { command: { resume: { approved: true } } });
    expect(done).toMatchObject({ approved: true });
  });

  it("a configurable the config schema refuses is a 400", async () => {
    const thread = await server.client.threads.create();
    await expect(
      server.client.runs.wait(thread.thread_id, "typed", {
        input: { topic: "t" },
        config: { configurable: { tone: "loud" } },
      }),
    ).rejects.toThrow(/400.*tone/s);
  });

  it("a context the context schema refuses is a 400; a good one runs", async () => {
    const thread = await server.client.threads.create();
    await expect(
      server.client.runs.wait(thread.thread_id, "typed", { input: { topic: "t" }, context: { user_id: 7 } }),
    ).rejects.toThrow(/400.*user_id must be a string/s);
    const ok = await server.client.runs.wait(thread.thread_id, "typed", {
      input: { topic: "t" },
      context: { user_id: "u" },
    });
    expect(ok).toMatchObject({ topic: "t" });
  });
});
