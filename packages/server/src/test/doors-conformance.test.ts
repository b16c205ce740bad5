/**
 * One conversation, every door: the same script (start → pause → a message while paused → answer →
 * pause → answer → end) driven through the Agent Server API (the official SDK), AG-UI over SSE, AG-UI
 * over WebSocket and an application's own route, for each paused-input policy. Every door must end in
 * the same values, the same history length and the same thread status, and leave a thread the API
 * can see and search.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestServer, TEST_GRAPHS, type TestServer } from "./harness.js";

/** What a turn came to: what the thread asks now, or the error code the door answered with. */
type Outcome = { asks: unknown[] } | { error: string };

interface Door {
  name: string;
  say(assistant: string, threadId: string, text: string): Promise<Outcome>;
  answer(assistant: string, threadId: string, value: string): Promise<Outcome>;
}

let t: TestServer;
let client: Client;

const fixture = (graph: string) => ({ module: "./src/test/fixture-interview.ts", graph, routes: "interviewRoutes" });

beforeAll(async () => {
  t = await startTestServer({
    graphs: {
      ...TEST_GRAPHS,
      "interview-restart": fixture("restartInterview"),
      "interview-resume": fixture("resumeInterview"),
      "interview-reject": fixture("rejectInterview"),
    },
  });
  client = new Client({ apiUrl: t.url, apiKey: null });
});
afterAll(async () => {
  await t.close();
});

const codeOf = (error: unknown) => /"error":"([A-Z_]+)"/.exec(String((error as Error)?.message ?? error))?.[1] ?? "?";

const rest: Door = {
  name: "REST (SDK)",
  async say(assistant, threadId, text) {
    try {
      const v = (await client.runs.wait(threadId, assistant, {
        input: { messages: [{ role: "user", content: text }] },
        ifNotExists: "create",
      })) as { __interrupt__?: Array<{ value: unknown }> };
      return { asks: (v.__interrupt__ ?? []).map((i) => i.value) };
    } catch (error) {
      return { error: codeOf(error) };
    }
  },
  async answer(assistant, threadId, value) {
    try {
      const v = (await client.runs.wait(threadId, assistant, { command: { resume: value } })) as {
        __interrupt__?: Array<{ value: unknown }>;
      };
      return { asks: (v.__interrupt__ ?? []).map((i) => i.value) };
    } catch (error) {
      return { error: codeOf(error) };
    }
  },
};

type AgUiEvent = {
  type: string;
  code?: string;
  outcome?: { type: string; interrupts?: Array<{ id: string; metadata: { value: unknown } }> };
};

/** AG-UI: a turn is a `RunAgentInput`; answers name the interrupts the last RUN_FINISHED listed. */
function agUiDoor(name: string, send: (assistant: string, input: unknown) => Promise<AgUiEvent[]>): Door {
  const pending = new Map<string, string[]>();
  const turn = async (assistant: string, threadId: string, extra: Record<string, unknown>): Promise<Outcome> => {
    const events = await send(assistant, {
      threadId,
      runId: randomUUID(),
      tools: [],
      context: [],
      messages: [],
      ...extra,
    });
    const last = events.at(-1);
    if (last?.type === "RUN_ERROR") return { error: last.code ?? "?" };
    const interrupts = last?.outcome?.type === "interrupt" ? (last.outcome.interrupts ?? []) : [];
    pending.set(
      threadId,
      interrupts.map((i) => i.id),
    );
    return { asks: interrupts.map((i) => i.metadata.value) };
  };
  return {
    name,
    say: (assistant, threadId, text) =>
      turn(assistant, threadId, { messages: [{ id: randomUUID(), role: "user", content: text }] }),
    answer: (assistant, threadId, value) =>
      turn(assistant, threadId, {
        resume: (pending.get(threadId) ?? []).map((interruptId) => ({
          interruptId,
          status: "resolved",
          payload: value,
        })),
      }),
  };
}

const agUiSse = agUiDoor("AG-UI over SSE", async (assistant, input) => {
  const res = await fetch(`${t.url}/ag-ui/${assistant}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(input),
  });
  if (!res.ok) {
    const body = (await res.json()) as { error?: string };
    return [{ type: "RUN_ERROR", code: body.error ?? String(res.status) }];
  }
  const text = await res.text();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)) as AgUiEvent);
});

const agUiWs = agUiDoor("AG-UI over WebSocket", async (assistant, input) => {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/ag-ui/${assistant}/ws`);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const events: AgUiEvent[] = [];
  await new Promise<void>((resolve) => {
    ws.on("message", (raw) => {
      const e = JSON.parse(String(raw)) as AgUiEvent;
      events.push(e);
      if (e.type === "RUN_FINISHED" || e.type === "RUN_ERROR") resolve();
    });
    ws.send(JSON.stringify(input));
  });
  ws.close();
  return events;
});

const appRoute: Door = {
  name: "app route",
  async say(assistant, threadId, text) {
    return appTurn(assistant, { threadId, message: text });
  },
  async answer(assistant, threadId, value) {
    return appTurn(assistant, { threadId, answer: value });
  },
};

async function appTurn(assistant: string, body: Record<string, unknown>): Promise<Outcome> {
  const res = await fetch(`${t.url}/apps/${assistant}/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { asks?: unknown[]; error?: string };
  return res.ok ? { asks: json.asks ?? [] } : { error: json.error ?? String(res.status) };
}

const DOORS = [rest, agUiSse, agUiWs, appRoute];
const NAME = { question: "Your name?" };
const CITY = { question: "Where do you live, Ana?" };

/** What the message "Ana", sent while the thread asks for a name, does under each policy. */
const WHILE_PAUSED: Record<string, Outcome> = {
  restart: { asks: [NAME] }, // the pause is discarded and the interview starts over
  resume: { asks: [CITY] }, // the message is the answer
  reject: { error: "THREAD_PAUSED" },
};

interface Trace {
  door: string;
  threadId: string;
  outcomes: Outcome[];
}

async function converse(door: Door, policy: string): Promise<Trace> {
  const assistant = `interview-${policy}`;
  const threadId = randomUUID();
  const outcomes: Outcome[] = [];
  outcomes.push(await door.say(assistant, threadId, "hi"));
  outcomes.push(await door.say(assistant, threadId, "Ana"));
  if (policy !== "resume") outcomes.push(await door.answer(assistant, threadId, "Ana"));
  outcomes.push(await door.answer(assistant, threadId, "Gent"));
  return { door: door.name, threadId, outcomes };
}

/** What a thread looks like from the API, with message ids left out (each door makes its own). */
async function seen(threadId: string) {
  const thread = await client.threads.get(threadId);
  const state = await client.threads.getState(threadId);
  const history = await client.threads.getHistory(threadId, { limit: 100 });
  const values = state.values as {
    name: string;
    city: string;
    messages: Array<{ role?: string; type?: string; content: unknown }>;
  };
  return {
    status: thread.status,
    graphId: (thread.metadata as Record<string, unknown>).graph_id,
    values: {
      name: values.name,
      city: values.city,
      messages: values.messages.map((m) => [m.role ?? m.type, m.content]),
    },
    historyLength: history.length,
  };
}

describe.each(["restart", "resume", "reject"])("the %s policy through every door", (policy) => {
  it("every door gives the same answers and leaves the same thread", async () => {
    const traces: Trace[] = [];
    for (const door of DOORS) traces.push(await converse(door, policy));
    for (const trace of traces) {
      expect(trace.outcomes[0], `${trace.door}: the first message`).toEqual({ asks: [NAME] });
      expect(trace.outcomes[1], `${trace.door}: a message while paused`).toEqual(WHILE_PAUSED[policy]);
      expect(trace.outcomes.at(-1), `${trace.door}: the last answer`).toEqual({ asks: [] });
    }
    const views = await Promise.all(traces.map((tr) => seen(tr.threadId)));
    const [first] = views;
    expect(first?.status).toBe("idle");
    expect(first?.graphId).toBe(`interview-${policy}`);
    expect(first?.values.name).toBe("Ana");
    expect(first?.values.city).toBe("Gent");
    for (const [i, view] of views.entries()) expect(view, traces[i]?.door).toEqual(first);
    // every thread, whatever door made it, is found by the graph it belongs to
    const found = await client.threads.search({ metadata: { graph_id: `interview-${policy}` }, limit: 100 });
    const ids = new Set(found.map((th) => th.thread_id));
    for (const trace of traces) expect(ids.has(trace.threadId), trace.door).toBe(true);
  });
});
