/**
 * Input and output schemas over the Agent Server API, driven by the official SDK `Client` (issue 37):
 * `getSchemas` shows the input keys as input_schema and the output keys as output_schema; an input
 * that sets another key is a 400 naming it; `runs/wait` answers with the output keys only.
 */
import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, author: { module: "./src/test/fixture-input-output.ts", graph: "authorGraph" } },
});

describe("input and output schemas over the Agent Server API", () => {
  it("getSchemas: input_schema holds the input keys, output_schema the output keys, state_schema all", async () => {
    const schemas = await server.client.assistants.getSchemas("author");
    expect(Object.keys(schemas.input_schema?.properties ?? {})).toEqual(["topic"]);
    expect(Object.keys(schemas.output_schema?.properties ?? {})).toEqual(["draft", "status"]);
    expect(Object.keys(schemas.state_schema?.properties ?? {})).toEqual(["topic", "draft", "revisions", "status"]);
  });

  it("an input setting a key outside the input schema is a 400 naming it; nothing is queued", async () => {
    const thread = await server.client.threads.create();
    const error = await server.client.runs
      .wait(thread.thread_id, "author", { input: { topic: "ladders", status: "approved" } })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/400/);
    expect((error as Error).message).toMatch(/\\?"status\\?".*input keys are topic/s);
    expect(await server.client.runs.list(thread.thread_id)).toHaveLength(0);
  });

  it("runs/wait answers with the output keys; the thread's state keeps every key", async () => {
    const thread = await server.client.threads.create();
    const paused = (await server.client.runs.wait(thread.thread_id, "author", {
      input: { topic: "ladders" },
    })) as Record<string, unknown>;
    expect(Object.keys(paused).sort()).toEqual(["__interrupt__", "draft", "status"]);
    // a Command's update may still set any key
    const done = await server.client.runs.wait(thread.thread_id, "author", {
      command: { resume: "approved", update: { revisions: 7 } },
    });
    expect(done).toEqual({ draft: "About ladders", status: "approved" });
    const state = await server.client.threads.getState(thread.thread_id);
    expect(state.values).toEqual({ topic: "ladders", draft: "About ladders", revisions: 7, status: "approved" });
  });
});
