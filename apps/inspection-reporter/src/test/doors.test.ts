// One thread whatever door drives it (issue 18): the app's WebSocket, its /chat, the Agent Server API
// and the server's generic AG-UI endpoint all reach the same thread record, and a message sent while
// the reporting agent waits for a clarification answers it through every door (the graph's
// paused-input policy `resume`). Issue 24, finding 3 (part): what is pending is visible to a client
// that comes back.
import { HttpAgent } from "@ag-ui/client";
import { describe, expect, it } from "vitest";
import { WsFrontend } from "./ag-ui-client.js";
import { servedInspectionApp } from "./served-app.js";

const ASK = "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854";
const ANSWER = "hoofdstraat 2, ja, nee";
const QUESTIONS =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

const app = servedInspectionApp("inspection-doors-");

/** The fields of the API's and the app's JSON answers these tests read. */
interface Answer {
  thread_id: string;
  status: string;
  reply: string;
  activeAgent: string;
  metadata: Record<string, unknown>;
  interrupts: Array<{ value: unknown }>;
  values: { messages: Array<{ type: string; content: string }> };
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${app.server.url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Answer };
}

const chat = (threadId: string, message: string) =>
  call("POST", "/apps/inspection-reporter/chat", { thread_id: threadId, message });

/** The report's text: the last assistant message of the thread as the Agent Server API shows it. */
async function lastAssistantText(threadId: string): Promise<string> {
  const state = await call("GET", `/threads/${threadId}/state`);
  return state.json.values.messages.filter((m) => m.type === "ai" && m.content).at(-1)?.content ?? "";
}

describe("threads driven through the app's doors are threads of the Agent Server API", () => {
  it("a WebSocket thread: GET /threads/{id}, /threads/search, and its pending clarification in /state", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    const asked = await frontend.say(ASK);
    expect(asked.texts.at(-1)).toBe(QUESTIONS);
    frontend.close();

    const thread = await call("GET", `/threads/${frontend.threadId}`);
    expect(thread.status).toBe(200);
    expect(thread.json).toMatchObject({
      thread_id: frontend.threadId,
      status: "interrupted",
      metadata: { graph_id: "inspection-reporter" },
    });
    const found = await call("POST", "/threads/search", { metadata: { graph_id: "inspection-reporter" }, limit: 100 });
    const ids = (found.json as unknown as Answer[]).map((t) => t.thread_id);
    expect(ids).toContain(frontend.threadId);

    // A client that comes back learns what is pending: through the API and through the app's own route.
    const state = await call("GET", `/threads/${frontend.threadId}/state`);
    expect(state.json.interrupts).toHaveLength(1);
    expect(state.json.interrupts[0]?.value).toMatchObject({ type: "clarification_request", display_text: QUESTIONS });
    const view = await call("GET", `/apps/inspection-reporter/threads/${frontend.threadId}`);
    expect(view.json).toMatchObject({
      current_agent: "reporting-agent",
      pending_clarification: { type: "clarification_request", display_text: QUESTIONS },
    });
  });

  it("a /chat thread: visible over REST with its graph, and its status follows the conversation", async () => {
    const asked = await chat("doors-chat", ASK);
    expect(asked.json).toMatchObject({ status: "clarification", reply: QUESTIONS });
    expect((await call("GET", "/threads/doors-chat")).json).toMatchObject({
      status: "interrupted",
      metadata: { graph_id: "inspection-reporter" },
    });
    const done = await chat("doors-chat", ANSWER);
    expect(done.json).toMatchObject({ status: "answered", resumed: true, current_agent: "reporting-agent" });
    expect(done.json.reply).toContain("# Inspectierapport Restaurant Bella Rosa");
    expect((await call("GET", "/threads/doors-chat")).json.status).toBe("idle");
  });

  it("an AG-UI thread over SSE at /apps/inspection-reporter/ag-ui is the API's thread", async () => {
    const res = await fetch(`${app.server.url}/apps/inspection-reporter/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        threadId: "doors-sse",
        runId: "doors-sse-1",
        messages: [{ id: "u1", role: "user", content: ASK }],
      }),
    });
    expect(await res.text()).toContain('"RUN_FINISHED"');
    expect((await call("GET", "/threads/doors-sse")).json).toMatchObject({
      status: "interrupted",
      metadata: { graph_id: "inspection-reporter" },
    });
  });

  it("a REST thread answered over the WebSocket shows its new status on REST", async () => {
    const created = await call("POST", "/threads", {});
    const threadId = created.json.thread_id;
    await call("POST", `/threads/${threadId}/runs/wait`, {
      assistant_id: "inspection-reporter",
      input: { messages: [{ role: "user", content: ASK }] },
    });
    expect((await call("GET", `/threads/${threadId}`)).json.status).toBe("interrupted");

    const frontend = await WsFrontend.connect(app.server.wsUrl, threadId);
    const done = await frontend.say(ANSWER);
    frontend.close();
    expect(done.finished).toMatchObject({
      result: { current_agent: "reporting-agent", awaiting_clarification: false },
    });
    // (a frontend that did not see the thread's start also gets its earlier messages, after the streamed report)
    expect(done.texts.some((t) => t.includes("# Inspectierapport Restaurant Bella Rosa"))).toBe(true);
    expect((await call("GET", `/threads/${threadId}`)).json.status).toBe("idle");
    const runs = await call("GET", `/threads/${threadId}/runs`);
    expect(runs.json).toHaveLength(2);
  });
});

describe("a message while the reporting agent waits answers its question, whatever the door (policy: resume)", () => {
  it("asked over the WebSocket, answered with a plain input over the Agent Server API", async () => {
    const frontend = await WsFrontend.connect(app.server.wsUrl);
    await frontend.say(ASK);
    frontend.close();
    const done = await call("POST", `/threads/${frontend.threadId}/runs/wait`, {
      assistant_id: "inspection-reporter",
      input: { messages: [{ role: "user", content: ANSWER }] },
    });
    expect(done.status).toBe(200);
    expect(done.json.activeAgent).toBe("reporting-agent");
    expect(await lastAssistantText(frontend.threadId)).toContain("# Inspectierapport Restaurant Bella Rosa");
  });

  it("an input without a user message while the questions wait is refused, and the questions still wait", async () => {
    await chat("doors-refused", ASK);
    const refused = await call("POST", "/threads/doors-refused/runs/wait", {
      assistant_id: "inspection-reporter",
      input: { activeAgent: "general-agent" },
    });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: "THREAD_PAUSED" });
    const view = await call("GET", "/apps/inspection-reporter/threads/doors-refused");
    expect(view.json).toMatchObject({ pending_clarification: { display_text: QUESTIONS } });
  });

  it("asked over /chat, answered over the server's generic AG-UI WebSocket", async () => {
    await chat("doors-generic", ASK);
    const generic = await WsFrontend.connect(
      `${app.server.url.replace(/^http/, "ws")}/ag-ui/inspection-reporter/ws`,
      "doors-generic",
    );
    const done = await generic.say(ANSWER);
    generic.close();
    expect(done.finished).toMatchObject({ outcome: { type: "success" } });
    expect(await lastAssistantText("doors-generic")).toContain("# Inspectierapport Restaurant Bella Rosa");
  });

  it("@ag-ui/client's HttpAgent on the server's generic endpoint applies every state patch through a handoff", async () => {
    // the network's activeAgent starts absent; the handoff must add it, not replace a key the client lacks
    const agent = new HttpAgent({ url: `${app.server.url}/ag-ui/inspection-reporter`, threadId: "doors-http-agent" });
    agent.messages = [{ id: "u1", role: "user", content: ASK }];
    const errors: string[] = [];
    await agent.runAgent({}, { onRunErrorEvent: ({ event }) => void errors.push(event.message) });
    expect(errors).toEqual([]);
    expect((agent.state as { activeAgent?: string }).activeAgent).toBe("reporting-agent");
  });
});
