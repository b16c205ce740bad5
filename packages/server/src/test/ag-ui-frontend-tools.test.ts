// Issue 24, finding 6, on the server's generic AG-UI endpoint: the client's `tools` (frontend tools)
// reach the run, a call to one ends the run with the call open, the client's `tool` message continues
// it (no trailing user message needed), a result no open call waits for is refused naming it; the
// client's `state` is applied through the graph's input path, keys it does not declare are refused.
// Driven by @ag-ui/client's HttpAgent (SSE) and the WebSocket; every event checked against @ag-ui/core.
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestServer, TEST_GRAPHS, type TestServer } from "./harness.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    graphs: {
      ...TEST_GRAPHS,
      frontend: { module: "./src/test/fixture-frontend-tools.ts", graph: "frontendToolGraph" },
    },
  });
});
afterAll(async () => {
  await t.close();
});

const SHOW_MAP = {
  name: "show_map",
  description: "Show a place on the user's map",
  parameters: { type: "object", properties: { place: { type: "string" } }, required: ["place"] },
};

async function run(agent: HttpAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  for (const e of events) EventSchemas.parse(e);
  return events;
}

const post = (body: unknown) =>
  fetch(`${t.url}/ag-ui/frontend`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function threadValues(threadId: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.url}/threads/${threadId}/state`);
  return ((await res.json()) as { values: Record<string, unknown> }).values;
}

/** Sends one RunAgentInput over the AG-UI WebSocket and collects its events. */
async function overSocket(input: unknown): Promise<Array<{ type: string; [k: string]: unknown }>> {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/ag-ui/frontend/ws`);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const events: Array<{ type: string; [k: string]: unknown }> = [];
  await new Promise<void>((resolve) => {
    ws.on("message", (raw) => {
      const e = JSON.parse(String(raw)) as { type: string };
      events.push(e);
      if (e.type === "RUN_FINISHED" || e.type === "RUN_ERROR") resolve();
    });
    ws.send(JSON.stringify(input));
  });
  ws.close();
  for (const e of events) EventSchemas.parse(e);
  return events;
}

describe("frontend tools on the generic AG-UI endpoint", () => {
  it("round trip: declared tool → TOOL_CALL events and RUN_FINISHED → the client's result continues the run", async () => {
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/frontend`, threadId: randomUUID() });
    agent.messages = [{ id: "u1", role: "user", content: "Dorpsplein 14" }];
    const first = await run(agent, { tools: [SHOW_MAP] });
    expect(first.map((e) => e.type)).toEqual(
      expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "RUN_FINISHED"]),
    );
    expect(first.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "show_map" });
    expect(first.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(first.map((e) => e.type)).not.toContain("TOOL_CALL_RESULT");
    const asked = agent.messages.at(-1);
    expect(asked).toMatchObject({ role: "assistant", toolCalls: [{ function: { name: "show_map" } }] });
    const call = (asked as { toolCalls: Array<{ id: string; function: { arguments: string } }> }).toolCalls[0];
    expect(JSON.parse(call?.function.arguments ?? "{}")).toEqual({ place: "Dorpsplein 14" });

    // the frontend ran the tool: its result is the last message, no user message after it
    agent.messages.push({ id: "r1", role: "tool", toolCallId: call?.id as string, content: "shown at 52.09, 5.12" });
    const second = await run(agent, { tools: [SHOW_MAP] });
    expect(second.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(agent.messages.at(-1)).toMatchObject({
      role: "assistant",
      content: "The client said: shown at 52.09, 5.12 (metric)",
    });
    const stored = (await threadValues(agent.threadId)).messages as Array<{ type: string; tool_call_id?: string }>;
    expect(stored.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(stored[2]?.tool_call_id).toBe(call?.id);
  });

  it("refuses a tool result for an unknown or answered tool call, naming it, and stores nothing", async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/frontend`, threadId });
    agent.messages = [{ id: "u1", role: "user", content: "Markt 1" }];
    await run(agent, { tools: [SHOW_MAP] });
    const callId = (agent.messages.at(-1) as { toolCalls: Array<{ id: string }> }).toolCalls[0]?.id as string;
    const before = await threadValues(threadId);

    const bogus = await post({
      threadId,
      runId: randomUUID(),
      messages: [...agent.messages, { id: "r-bogus", role: "tool", toolCallId: "bogus-call", content: "x" }],
      tools: [SHOW_MAP],
    });
    expect(bogus.status).toBe(400);
    expect(await bogus.json()).toMatchObject({
      message: expect.stringContaining(
        `answers tool call "bogus-call", which is unknown: the open tool calls are "${callId}"`,
      ),
    });
    const overWs = await overSocket({
      threadId,
      runId: randomUUID(),
      messages: [...agent.messages, { id: "r-bogus", role: "tool", toolCallId: "bogus-call", content: "x" }],
      tools: [SHOW_MAP],
    });
    expect(overWs).toEqual([
      expect.objectContaining({
        type: "RUN_ERROR",
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining('"bogus-call"'),
      }),
    ]);
    expect(await threadValues(threadId)).toEqual(before);

    // answered once; a second result for the same call is refused too
    agent.messages.push({ id: "r1", role: "tool", toolCallId: callId, content: "shown" });
    await run(agent, { tools: [SHOW_MAP] });
    const again = await post({
      threadId,
      runId: randomUUID(),
      messages: [...agent.messages, { id: "r2", role: "tool", toolCallId: callId, content: "again" }],
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { message: string }).message).toContain(
      `"${callId}", which has its result already`,
    );
  });

  it("stores a failed frontend tool (AG-UI error) as an error result", async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/frontend`, threadId });
    agent.messages = [{ id: "u1", role: "user", content: "Markt 1" }];
    await run(agent, { tools: [SHOW_MAP] });
    const callId = (agent.messages.at(-1) as { toolCalls: Array<{ id: string }> }).toolCalls[0]?.id as string;
    agent.messages.push({ id: "r1", role: "tool", toolCallId: callId, content: "", error: "no map on this device" });
    await run(agent, { tools: [SHOW_MAP] });
    const stored = (await threadValues(threadId)).messages as Array<{ type: string; status?: string; content: string }>;
    expect(stored[2]).toMatchObject({ type: "tool", status: "error", content: "no map on this device" });
    expect(agent.messages.at(-1)).toMatchObject({ content: "The client said: no map on this device (metric)" });
  });

  it("closes an open call with an error result when the user goes on with a new message", async () => {
    const threadId = randomUUID();
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/frontend`, threadId });
    agent.messages = [{ id: "u1", role: "user", content: "Markt 1" }];
    await run(agent, { tools: [SHOW_MAP] });
    agent.messages.push({ id: "u2", role: "user", content: "never mind" });
    await run(agent); // no tools this time: the agent answers
    const stored = (await threadValues(threadId)).messages as Array<{ type: string; status?: string; content: string }>;
    expect(stored.map((m) => m.type)).toEqual(["human", "ai", "tool", "human", "ai"]);
    expect(stored[2]).toMatchObject({ status: "error", content: expect.stringContaining("No result") });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Hello (metric)" });
  });
});

describe("client state on the generic AG-UI endpoint", () => {
  it("applies a declared key the client changed, and STATE_SNAPSHOT shows it; an echo changes nothing", async () => {
    const agent = new HttpAgent({ url: `${t.url}/ag-ui/frontend`, threadId: randomUUID() });
    agent.messages = [{ id: "u1", role: "user", content: "hi" }];
    agent.setState({ units: "imperial" });
    const events = await run(agent);
    const snapshot = events.find((e) => e.type === "STATE_SNAPSHOT") as unknown as { snapshot: { units: string } };
    expect(snapshot.snapshot.units).toBe("imperial");
    expect(agent.messages.at(-1)).toMatchObject({ content: "Hello (imperial)" });
    expect((agent.state as { units: string; turns: number }).units).toBe("imperial");

    // the client sends its state back unchanged with the next message: nothing of it is applied again
    agent.messages.push({ id: "u2", role: "user", content: "again" });
    await run(agent);
    expect(agent.state).toMatchObject({ units: "imperial", turns: 2 });
  });

  it("refuses a key the graph does not declare, naming it (400 over SSE, RUN_ERROR over the WebSocket)", async () => {
    const input = {
      threadId: randomUUID(),
      runId: randomUUID(),
      messages: [{ id: "u1", role: "user", content: "hi" }],
      state: { units: "metric", verdict: "compliant" },
    };
    const res = await post(input);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: "UNKNOWN_STATE_KEY",
      message: expect.stringContaining('the graph does not declare: "verdict"'),
    });
    const events = await overSocket(input);
    expect(events).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "UNKNOWN_STATE_KEY" })]);
    expect((await fetch(`${t.url}/threads/${input.threadId}`)).status).toBe(404);
  });

  it("checks the client's state with the graph's input check", async () => {
    const res = await post({
      threadId: randomUUID(),
      runId: randomUUID(),
      messages: [{ id: "u1", role: "user", content: "hi" }],
      state: { units: "kelvin" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('units must be "metric" or "imperial"');
  });
});
