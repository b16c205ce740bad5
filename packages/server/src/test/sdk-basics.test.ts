import { describe, expect, it } from "vitest";
import { sdkServer } from "./harness.js";

const server = sdkServer();

describe("the official langgraph-sdk Client against the server", () => {
  it("answers /ok and /info", async () => {
    expect(await (await fetch(`${server.t.url}/ok`)).json()).toEqual({ ok: true });
    const info = (await (await fetch(`${server.t.url}/info`)).json()) as { flags: { assistants: boolean } };
    expect(info.flags.assistants).toBe(true);
  });

  it("lists, gets and draws assistants", async () => {
    const found = await server.client.assistants.search({ graphId: "approval-flow" });
    expect(found.map((a) => a.assistant_id)).toEqual(["approval-flow"]);
    const one = await server.client.assistants.get("approval-flow");
    expect(one.graph_id).toBe("approval-flow");
    const graph = await server.client.assistants.getGraph("approval-flow");
    expect(graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["write", "review", "approve"]));
    const schemas = await server.client.assistants.getSchemas("approval-flow");
    expect(Object.keys(schemas.state_schema?.properties ?? {})).toContain("draft");
    await expect(server.client.assistants.get("nope")).rejects.toThrow(/404/);
  });

  it("streams a run to an interrupt, resumes it with a command, reads state and history", async () => {
    const thread = await server.client.threads.create({ metadata: { user: "ana" }, graphId: "approval-flow" });
    const events: Array<{ event: string; data: unknown; id?: string }> = [];
    for await (const chunk of server.client.runs.stream(thread.thread_id, "approval-flow", {
      input: { request: "lockout" },
      streamMode: ["values", "updates"],
    })) {
      events.push(chunk as never);
    }
    expect(events[0]?.event).toBe("metadata");
    const interruptUpdate = events.find(
      (e) => e.event === "updates" && (e.data as Record<string, unknown>).__interrupt__ !== undefined,
    );
    expect(interruptUpdate).toBeDefined();
    const lastValues = events.filter((e) => e.event === "values").at(-1)?.data as Record<string, unknown>;
    expect(lastValues.__interrupt__).toEqual([
      expect.objectContaining({ value: expect.objectContaining({ question: "Any changes to the draft?" }) }),
    ]);

    let state = await server.client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["review"]);
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("interrupted");

    const resumed = (await server.client.runs.wait(thread.thread_id, "approval-flow", {
      command: { resume: "add PPE" },
    })) as Record<string, unknown>;
    expect(resumed.__interrupt__).toBeDefined();
    const final = (await server.client.runs.wait(thread.thread_id, "approval-flow", {
      command: { resume: true },
    })) as Record<string, unknown>;
    expect(final.status).toBe("approved");
    expect(final.draft).toContain("(add PPE)");

    state = await server.client.threads.getState(thread.thread_id);
    expect(state.next).toEqual([]);
    const history = await server.client.threads.getHistory(thread.thread_id, { limit: 50 });
    expect(history.length).toBeGreaterThan(3);
    expect(history[0]?.checkpoint.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("idle");

    const runs = await server.client.runs.list(thread.thread_id);
    // as LangGraph reports them: the two runs that paused succeeded; the pause was the thread's status
    expect(runs.map((r) => r.status)).toEqual(["success", "success", "success"]);
  });

  it("updates state as a node and searches threads by metadata and status", async () => {
    const thread = await server.client.threads.create({ metadata: { team: "blue" } });
    await server.client.runs.wait(thread.thread_id, "approval-flow", { input: { request: "x" } });
    const before = await server.client.threads.getState(thread.thread_id);
    const { configurable } = await server.client.threads.updateState(thread.thread_id, { values: { draft: "edited" } });
    expect(configurable?.checkpoint_id).not.toBe(before.checkpoint.checkpoint_id);
    expect(((await server.client.threads.getState(thread.thread_id)).values as Record<string, unknown>).draft).toBe(
      "edited",
    );
    const blue = await server.client.threads.search({ metadata: { team: "blue" } });
    expect(blue.map((x) => x.thread_id)).toEqual([thread.thread_id]);
    const idle = await server.client.threads.search({ status: "idle", limit: 100 });
    expect(idle.map((x) => x.thread_id)).toContain(thread.thread_id);
    await server.client.threads.delete(thread.thread_id);
    await expect(server.client.threads.get(thread.thread_id)).rejects.toThrow(/404/);
  });

  it("creates threads with if_exists", async () => {
    const a = await server.client.threads.create({ threadId: "fixed-id-1" });
    const again = await server.client.threads.create({ threadId: "fixed-id-1", ifExists: "do_nothing" });
    expect(again.created_at).toBe(a.created_at);
    await expect(server.client.threads.create({ threadId: "fixed-id-1" })).rejects.toThrow(/409/);
  });

  it("streams model chunks in messages-tuple mode", async () => {
    const thread = await server.client.threads.create();
    const chunks: string[] = [];
    for await (const e of server.client.runs.stream(thread.thread_id, "chat", {
      input: { messages: [{ id: "u1", role: "user", content: "weather?" }] },
      streamMode: ["messages-tuple"],
    })) {
      if (e.event !== "messages") continue;
      const [chunk, meta] = e.data as unknown as [{ type: string; content: string }, { langgraph_node: string }];
      if (chunk.type === "AIMessageChunk" && chunk.content) chunks.push(`${meta.langgraph_node}:${chunk.content}`);
    }
    expect(chunks).toEqual(["agent:Hel", "agent:lo"]);
  });

  it("honours per-run interrupt_before and continues with a null input", async () => {
    const thread = await server.client.threads.create();
    await server.client.runs.wait(thread.thread_id, "slow", { input: { delayMs: 1 }, interruptBefore: ["b"] });
    expect((await server.client.threads.getState(thread.thread_id)).next).toEqual(["b"]);
    expect((await server.client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const done = (await server.client.runs.wait(thread.thread_id, "slow", { input: null })) as { log: string[] };
    expect(done.log).toEqual(["a", "b", "c"]);
  });
});
