/**
 * Per-user limits on open streams (`limits.streamsPerUser`): SSE run streams and WebSockets count;
 * the one past the limit is a 429 that stores nothing; closing a stream frees its place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestServer, type TestServer } from "./harness.js";
import { rawExchange, upgradeRequest } from "./raw-socket.js";

let t: TestServer;
const ANA = { "x-api-key": "key-ana" };
const BO = { "x-api-key": "key-bo" };
const open: AbortController[] = [];
/** Open responses, kept referenced: undici cancels the body of a response it has garbage-collected. */
const held: Response[] = [];

beforeAll(async () => {
  t = await startTestServer({
    auth: {
      enabled: true,
      credentials: [
        { user: "ana", apiKey: "key-ana" },
        { user: "bo", apiKey: "key-bo" },
      ],
    },
    limits: { streamsPerUser: 3 },
  });
});
afterAll(async () => {
  for (const a of open) a.abort();
  await t.close();
});

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Opens a stream and keeps it open; resolves with its status once the headers arrived. */
async function openStream(path: string, headers: Record<string, string>, body?: unknown) {
  const abort = new AbortController();
  open.push(abort);
  const res = await fetch(`${t.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: abort.signal,
  });
  held.push(res);
  const json = res.status === 200 ? undefined : ((await res.json()) as { error: string; message: string });
  return { status: res.status, json, close: () => abort.abort() };
}

describe("limits.streamsPerUser", () => {
  it("the stream past the limit is a 429 that stores nothing; other users are not affected", async () => {
    const T = (await call("POST", "/threads", ANA, {})).json.thread_id as string;
    // a run that outlives the test (it is cancelled at the end): its streams stay open however slow the machine
    const run = await call("POST", `/threads/${T}/runs`, ANA, { assistant_id: "slow", input: { delayMs: 20_000 } });
    const R = run.json.run_id as string;
    const streams = [];
    for (let i = 0; i < 3; i++) {
      const s = await openStream(`/threads/${T}/runs/${R}/stream`, ANA);
      expect(s.status).toBe(200);
      streams.push(s);
    }
    const refused = await openStream(`/threads/${T}/runs/${R}/stream`, ANA);
    const runNow = (await call("GET", `/threads/${T}/runs/${R}`, ANA)).json;
    expect(refused.status, `the run is ${runNow.status} ${JSON.stringify(runNow.error)}`).toBe(429);
    expect(refused.json?.error).toBe("TOO_MANY_REQUESTS");
    expect(refused.json?.message).toMatch(/3 open streams/);

    // a new streamed run past the limit is refused before anything is stored
    const T2 = (await call("POST", "/threads", ANA, {})).json.thread_id as string;
    const created = await openStream(`/threads/${T2}/runs/stream`, ANA, { assistant_id: "slow", input: {} });
    expect(created.status).toBe(429);
    expect((await call("GET", `/threads/${T2}/runs`, ANA)).json).toEqual([]);

    // so is an AG-UI run over SSE
    const agUi = await openStream("/ag-ui/chat", ANA, { threadId: "ag-ui-t", runId: "ag-ui-r", messages: [] });
    expect(agUi.status).toBe(429);

    // and a WebSocket
    const ws = await rawExchange(Number(new URL(t.url).port), upgradeRequest("/ag-ui/chat/ws", ANA), {
      done: (b) => b.includes("\r\n\r\n"),
    });
    expect(ws.status).toBe(429);

    // another user has places of their own
    const T3 = (await call("POST", "/threads", BO, {})).json.thread_id as string;
    const bo = await openStream(`/threads/${T3}/runs/stream`, BO, { assistant_id: "slow", input: { delayMs: 1 } });
    expect(bo.status).toBe(200);

    // closing a stream frees its place
    streams[0]?.close();
    await eventually(async () => {
      const again = await openStream(`/threads/${T}/runs/${R}/stream`, ANA);
      if (again.status === 200) return true;
      again.close();
      return false;
    });
    await call("POST", `/threads/${T}/runs/${R}/cancel`, ANA);
  });
});
