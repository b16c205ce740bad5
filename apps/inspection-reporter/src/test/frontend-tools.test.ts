// Issue 24, finding 6 (the rest): the client's `tools` (frontend tools) and `state` as AG-UI specifies.
// A tool the inspector's app declares is offered to the agents; when the offline general agent calls it,
// the turn ends with TOOL_CALL_START/ARGS/END and RUN_FINISHED, the call open for the app; the app's
// `tool` message (last, no user message after it) continues the agent, which uses the result. The
// client's state may set the inspector's settings and nothing else. Through the app's WebSocket and SSE
// (@ag-ui/client's HttpAgent) and the server's generic /ag-ui/inspection-reporter endpoint; every event
// checked against the @ag-ui/core schemas.
import { randomUUID } from "node:crypto";
import { HttpAgent, type Message } from "@ag-ui/client";
import type { BaseEvent } from "@ag-ui/core";
import { EventSchemas } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { type ReceivedEvent, WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const LOCATION_TOOL = {
  name: "huidige_locatie",
  description: "De GPS-locatie van het toestel van de inspecteur, als adres.",
  parameters: { type: "object", properties: {} },
};
const ASK_LOCATION = "Wat is mijn huidige locatie?";
const LOCATION = "Dorpsplein 14, 3512 AB Utrecht";
const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

const app = servedInspectionApp("inspection-frontend-tools-");

const appAgent = (threadId: string) =>
  new HttpAgent({ url: `${app.server.url}/apps/inspection-reporter/ag-ui`, threadId });
const genericAgent = (threadId: string) =>
  new HttpAgent({ url: `${app.server.url}/ag-ui/inspection-reporter`, threadId });

async function run(agent: HttpAgent, params: Parameters<HttpAgent["runAgent"]>[0] = {}) {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  for (const e of events) EventSchemas.parse(e);
  return events;
}

/** One RunAgentInput over a WebSocket; its events, each checked against the AG-UI schemas. */
async function frame(url: string, input: Record<string, unknown>): Promise<ReceivedEvent[]> {
  const socket = await WsFrontend.connect(url, input.threadId as string);
  try {
    const events = await socket.sendRaw(JSON.stringify({ runId: randomUUID(), tools: [], context: [], ...input }));
    for (const e of events) EventSchemas.parse(e);
    return events;
  } finally {
    socket.close();
  }
}

async function threadView(threadId: string) {
  const res = await fetch(`${app.server.url}/apps/inspection-reporter/threads/${threadId}`);
  return (await res.json()) as {
    current_agent: string;
    messages: Array<{ id: string; role: string; content: string; toolCallId?: string; status?: string }>;
    pending_clarification: unknown;
  };
}

/** Tool calls of assistant messages that have no tool message answering them. */
function openCalls(messages: readonly Message[]): string[] {
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return messages.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).filter((c) => !answered.has(c.id)).map((c) => c.function.name) : [],
  );
}

const lastSnapshot = (events: readonly ReceivedEvent[]) =>
  (events.filter((e) => e.type === "MESSAGES_SNAPSHOT").at(-1) as unknown as { messages: Message[] }).messages;

describe("a frontend tool over the app's WebSocket", () => {
  it("is called, left open for the app, and its result continues the agent", async () => {
    const threadId = "ft-ws";
    const ask = { id: "u1", role: "user", content: ASK_LOCATION };
    const first = await frame(app.server.wsUrl, { threadId, messages: [ask], tools: [LOCATION_TOOL] });
    const types = first.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]));
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(types).not.toContain("TOOL_CALL_RESULT");
    const start = first.find((e) => e.type === "TOOL_CALL_START") as ReceivedEvent;
    expect(start).toMatchObject({ toolCallName: "huidige_locatie" });
    expect(first.at(-1)).toMatchObject({
      outcome: { type: "success" },
      result: {
        awaiting_clarification: false,
        pending_tool_calls: [{ id: start.toolCallId, name: "huidige_locatie" }],
      },
    });
    const held = lastSnapshot(first);
    expect(openCalls(held)).toEqual(["huidige_locatie"]);

    // the app ran the tool: its result is the input's last message
    const result = { id: "r1", role: "tool", toolCallId: start.toolCallId, content: LOCATION };
    const second = await frame(app.server.wsUrl, { threadId, messages: [...held, result], tools: [LOCATION_TOOL] });
    expect(second.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      outcome: { type: "success" },
      result: { pending_tool_calls: [] },
    });
    const text = second.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta);
    expect(text.join("")).toBe(`Uw app meldt (huidige_locatie): ${LOCATION}`);
    const conversation = lastSnapshot(second);
    expect(openCalls(conversation)).toEqual([]);
    expect(conversation.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const stored = (await threadView(threadId)).messages;
    expect(stored.find((m) => m.role === "tool")).toMatchObject({
      id: "r1",
      toolCallId: start.toolCallId,
      content: LOCATION,
    });
  });

  it("tells a client that reconnects which tool call it owes a result for", async () => {
    const threadId = "ft-reconnect";
    const first = await frame(app.server.wsUrl, {
      threadId,
      messages: [{ id: "u1", role: "user", content: ASK_LOCATION }],
      tools: [LOCATION_TOOL],
    });
    const start = first.find((e) => e.type === "TOOL_CALL_START") as ReceivedEvent;
    // the phone lost the connection: the app comes back with nothing but the thread id
    const back = await frame(app.server.wsUrl, { threadId, messages: [] });
    expect(back.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(openCalls(lastSnapshot(back))).toEqual(["huidige_locatie"]);
    expect(back.at(-1)).toMatchObject({
      result: { pending_tool_calls: [{ id: start.toolCallId, name: "huidige_locatie" }] },
    });
    const result = { id: "r1", role: "tool", toolCallId: start.toolCallId, content: LOCATION };
    const done = await frame(app.server.wsUrl, { threadId, messages: [...lastSnapshot(back), result] });
    expect(lastSnapshot(done).at(-1)).toMatchObject({ content: `Uw app meldt (huidige_locatie): ${LOCATION}` });
  });

  it("refuses a frontend tool named like one of the agents' tools, naming it, and runs nothing", async () => {
    const events = await frame(app.server.wsUrl, {
      threadId: "ft-clash",
      messages: [{ id: "u1", role: "user", content: "Hallo" }],
      tools: [{ name: "transfer_to_reporting", description: "the app's own" }],
    });
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT", threadId: "ft-clash" });
    expect(String(events.at(-1)?.message)).toContain(
      'Frontend tool "transfer_to_reporting" has the name of one of the agent\'s own tools',
    );
    expect((await fetch(`${app.server.url}/apps/inspection-reporter/threads/ft-clash`)).status).toBe(404);
  });

  it("closes the open call when the inspector goes on with a new message instead", async () => {
    const threadId = "ft-went-on";
    const first = await frame(app.server.wsUrl, {
      threadId,
      messages: [{ id: "u1", role: "user", content: ASK_LOCATION }],
      tools: [LOCATION_TOOL],
    });
    const next = { id: "u2", role: "user", content: "Hallo" };
    const second = await frame(app.server.wsUrl, { threadId, messages: [...lastSnapshot(first), next] });
    expect(second.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
    const conversation = lastSnapshot(second);
    expect(openCalls(conversation)).toEqual([]);
    expect(conversation.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
    expect(conversation[2]).toMatchObject({ role: "tool", error: expect.stringContaining("Geen resultaat") });
    expect(String(conversation.at(-1)?.content)).toContain("Ik ben de inspectie-assistent.");
  });
});

describe("a frontend tool through @ag-ui/client's HttpAgent", () => {
  for (const [door, agentFor] of [
    ["the app's SSE endpoint", appAgent],
    ["the server's generic /ag-ui/inspection-reporter", genericAgent],
  ] as const) {
    it(`round trip on ${door}: TOOL_CALL events, then the app's result is used`, async () => {
      const agent = agentFor(randomUUID());
      agent.messages = [{ id: "u1", role: "user", content: ASK_LOCATION }];
      const first = await run(agent, { tools: [LOCATION_TOOL] });
      expect(first.find((e) => e.type === "TOOL_CALL_START")).toMatchObject({ toolCallName: "huidige_locatie" });
      expect(first.at(-1)).toMatchObject({ type: "RUN_FINISHED" });
      expect(openCalls(agent.messages)).toEqual(["huidige_locatie"]);
      const call = agent.messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []))[0];

      agent.messages.push({ id: randomUUID(), role: "tool", toolCallId: call?.id as string, content: LOCATION });
      await run(agent, { tools: [LOCATION_TOOL] });
      expect(agent.messages.at(-1)).toMatchObject({
        role: "assistant",
        content: `Uw app meldt (huidige_locatie): ${LOCATION}`,
      });
      expect(openCalls(agent.messages)).toEqual([]);
    });
  }

  it("the generic endpoint fails the run naming a frontend tool that clashes with an agent's tool", async () => {
    const events = await frame(`${app.server.url.replace(/^http/, "ws")}/ag-ui/inspection-reporter/ws`, {
      threadId: randomUUID(),
      messages: [{ id: "u1", role: "user", content: "Hallo" }],
      tools: [{ name: "update_user_settings", description: "the app's own" }],
    });
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" });
    expect(String(events.at(-1)?.message)).toContain('Frontend tool "update_user_settings" has the name');
  });
});

describe("a tool result while the reporting agent waits for answers", () => {
  it("is refused with THREAD_PAUSED, and the questions stay pending for the inspector's answer", async () => {
    const threadId = "ft-paused";
    const agent = appAgent(threadId);
    agent.messages = [{ id: "u1", role: "user", content: ASK }];
    await run(agent);
    expect(agent.messages.at(-1)).toMatchObject({ content: QUESTIONS });
    const events = await frame(app.server.wsUrl, {
      threadId,
      messages: [...agent.messages, { id: "r-x", role: "tool", toolCallId: "whatever", content: "x" }],
    });
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "THREAD_PAUSED", threadId });
    expect(String(events.at(-1)?.message)).toMatch(/waits for the inspector's answers .* not for a tool result/);
    expect((await threadView(threadId)).pending_clarification).not.toBeNull();

    agent.messages.push({ id: "u2", role: "user", content: "Hoofdstraat 2, ja, nee" });
    await run(agent);
    expect(String(agent.messages.at(-1)?.content)).toContain("Het inspectierapport is klaar (oordeel: Voldoet).");
  });
});

describe("the client's state", () => {
  it("sets the inspector's settings (user_settings): STATE_SNAPSHOT shows them and the report names the inspector", async () => {
    const agent = appAgent("state-settings");
    agent.setState({ user_settings: { inspector_name: "Jan de Vries" } });
    agent.messages = [{ id: "u1", role: "user", content: ASK }];
    const first = await run(agent);
    const snapshot = first.find((e) => e.type === "STATE_SNAPSHOT") as unknown as { snapshot: Record<string, unknown> };
    expect(snapshot.snapshot.user_settings).toEqual({ inspector_name: "Jan de Vries" });
    expect((agent.state as { user_settings: unknown }).user_settings).toEqual({ inspector_name: "Jan de Vries" });
    // the client sends its state back with the answer (messages and current_agent are the server's)
    agent.messages.push({ id: "u2", role: "user", content: "Hoofdstraat 2, ja, nee" });
    await run(agent);
    expect(String(agent.messages.at(-1)?.content)).toContain("- Inspecteur: Jan de Vries");

    // a settings screen: a state change without a new message runs nothing and shows the new settings
    const saved = await frame(app.server.wsUrl, {
      threadId: "state-settings",
      messages: [],
      state: { user_settings: { inspector_name: "Jan de Vries", region: "Utrecht" } },
    });
    expect(saved.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    expect(saved[2]).toMatchObject({
      snapshot: { user_settings: { inspector_name: "Jan de Vries", region: "Utrecht" } },
    });
  });

  it("refuses keys the app does not take from a client, naming them, and stores nothing", async () => {
    const events = await frame(app.server.wsUrl, {
      threadId: "state-facts",
      messages: [{ id: "u1", role: "user", content: ASK }],
      state: { company_name: "Iets Anders BV", verdict: "Voldoet" },
    });
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "UNKNOWN_STATE_KEY", threadId: "state-facts" });
    expect(String(events.at(-1)?.message)).toContain('"company_name", "verdict"');
    expect(String(events.at(-1)?.message)).toContain("Report facts come from what the inspector says");
    expect((await fetch(`${app.server.url}/apps/inspection-reporter/threads/state-facts`)).status).toBe(404);

    const bad = await frame(app.server.wsUrl, {
      threadId: "state-facts",
      messages: [{ id: "u1", role: "user", content: "Hallo" }],
      state: { user_settings: { detail_level: "heel kort" } },
    });
    expect(bad.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" });
    expect(String(bad.at(-1)?.message)).toContain("user_settings does not fit: detail_level");
  });

  it("ignores the client's copy of current_agent: the conversation moves only by handoff", async () => {
    const threadId = "state-agent";
    const first = await frame(app.server.wsUrl, {
      threadId,
      messages: [{ id: "u1", role: "user", content: ASK }],
      state: { current_agent: "history-agent" },
    });
    expect(first.at(-1)).toMatchObject({ result: { current_agent: "reporting-agent", awaiting_clarification: true } });
    const second = await frame(app.server.wsUrl, {
      threadId,
      messages: [...lastSnapshot(first), { id: "u2", role: "user", content: "Hoofdstraat 2, ja, nee" }],
      state: { current_agent: "general-agent" },
    });
    expect(second.at(-1)).toMatchObject({ result: { current_agent: "reporting-agent" } });
    expect(String(lastSnapshot(second).at(-1)?.content)).toContain("Het inspectierapport is klaar");
  });

  it("on the generic endpoint: a key the graph does not declare is refused naming it", async () => {
    const res = await fetch(`${app.server.url}/ag-ui/inspection-reporter`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: randomUUID(),
        runId: randomUUID(),
        messages: [{ id: "u1", role: "user", content: "Hallo" }],
        state: { company_name: "Iets Anders BV" },
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: "UNKNOWN_STATE_KEY",
      message: expect.stringContaining('the graph does not declare: "company_name"'),
    });
  });
});
