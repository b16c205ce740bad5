import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { jsonPatch } from "../ag-ui/ag-ui-events.js";
import { startTestServer, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function runAgent(agent: HttpAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

describe("AG-UI endpoint, driven by @ag-ui/client", () => {
  it("streams text, tool calls, tool results and state as AG-UI events", async () => {
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/chat` });
    agent.messages = [{ id: "u1", role: "user", content: "weather?" }];
    const events = await runAgent(agent);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types).toEqual(
      expect.arrayContaining([
        "STATE_SNAPSHOT",
        "STATE_DELTA",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
      ]),
    );
    const deltas = events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => (e as unknown as { delta: string }).delta);
    expect(deltas).toEqual(["Hel", "lo", "It is sunny."]);
    const args = events
      .filter((e) => e.type === "TOOL_CALL_ARGS")
      .map((e) => (e as unknown as { delta: string }).delta);
    expect(args.join("")).toBe('{"q":"weather"}');
    // the client rebuilt the conversation from the events
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(agent.messages.at(-1)?.content).toBe("It is sunny.");
    expect((agent.state as { messages: unknown[] }).messages).toHaveLength(4);
  });

  it("surfaces an interrupt in RUN_FINISHED and resumes it with a resume entry", async () => {
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/ask` });
    agent.messages = [{ id: "u1", role: "user", content: "hi" }];
    const first = await runAgent(agent);
    const finished = first.at(-1) as unknown as {
      outcome: { type: string; interrupts: Array<{ id: string; message: string }> };
    };
    expect(finished.outcome.type).toBe("interrupt");
    const [pending] = finished.outcome.interrupts;
    expect(pending?.message).toBe("What is your name?");
    const second = await runAgent(agent, {
      resume: [{ interruptId: pending!.id, status: "resolved", payload: "Ana" }],
    });
    const done = second.at(-1) as unknown as { outcome: { type: string } };
    expect(done.outcome.type).toBe("success");
    expect(agent.messages.at(-1)?.content).toBe("Hello Ana");
  });

  it("binds the same events to a WebSocket", async () => {
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/ag-ui/chat/ws`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const events: Array<{ type: string }> = [];
    const done = new Promise<void>((resolve) => {
      ws.on("message", (raw) => {
        const e = JSON.parse(String(raw)) as { type: string };
        events.push(e);
        if (e.type === "RUN_FINISHED" || e.type === "RUN_ERROR") resolve();
      });
    });
    ws.send(
      JSON.stringify({
        threadId: randomUUID(),
        runId: randomUUID(),
        messages: [{ id: "u1", role: "user", content: "hi" }],
        tools: [],
        context: [],
      }),
    );
    await done;
    ws.close();
    expect(events[0]?.type).toBe("RUN_STARTED");
    expect(events.map((e) => e.type)).toContain("TOOL_CALL_RESULT");
    expect(events.at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("patches a key the snapshot held as undefined (absent on the wire) with add, not replace", () => {
    // the inspection network's activeAgent starts undefined: the client's snapshot has no such key
    expect(jsonPatch({ messages: [], activeAgent: undefined }, { messages: [], activeAgent: "reporting" })).toEqual([
      { op: "add", path: "/activeAgent", value: "reporting" },
    ]);
    expect(jsonPatch({ a: 1 }, { a: 1, b: undefined })).toEqual([]);
    expect(jsonPatch({ a: 1, b: 2 }, { a: 1, b: undefined })).toEqual([{ op: "remove", path: "/b" }]);
  });

  it("makes JSON patches that only append to grown lists", () => {
    expect(jsonPatch({ n: 1, log: ["a"], gone: 1 }, { n: 2, log: ["a", "b"] })).toEqual([
      { op: "remove", path: "/gone" },
      { op: "replace", path: "/n", value: 2 },
      { op: "add", path: "/log/-", value: "b" },
    ]);
  });
});
