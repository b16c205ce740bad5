/**
 * Who a run acts for, through the real doors: a node reads the authenticated user as `ctx.user` and as
 * LangGraph's `configurable` keys; a client that names a user itself (a reserved key) is refused with a
 * 400 naming the key, whatever door it comes through; with auth off there is no user. And what an app
 * keeps per thread goes with the thread.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { ManualClock } from "@trellis/checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createServer } from "../server.js";
import { at, moveTo } from "./cron-cases.js";
import { PACKAGE_DIR, startTestServer, type TestServer } from "./harness.js";

const GRAPHS = {
  whoami: { module: "./src/test/fixture-identity.ts", graph: "whoamiGraph" },
  notes: { module: "./src/test/fixture-identity.ts", graph: "whoamiGraph", routes: "notesRoutes" },
};
const AUTH = {
  enabled: true,
  credentials: [
    { user: "alice", apiKey: "key-alice" },
    { user: "bob", apiKey: "key-bob" },
  ],
};

async function call(t: TestServer, method: string, path: string, key: string | null, body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(key ? { "x-api-key": key } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** The events of one AG-UI exchange over the server's WebSocket. */
function agUiOverWs(
  t: TestServer,
  key: string,
  input: Record<string, unknown>,
): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/ag-ui/whoami/ws?api_key=${key}`);
    const events: Array<Record<string, unknown>> = [];
    ws.on("open", () => ws.send(JSON.stringify(input)));
    ws.on("message", (raw) => {
      const e = JSON.parse(String(raw)) as Record<string, unknown>;
      events.push(e);
      if (e.type === "RUN_FINISHED" || e.type === "RUN_ERROR") {
        ws.close();
        resolve(events);
      }
    });
    ws.on("error", reject);
  });
}

const agUiInput = (extra: Record<string, unknown> = {}) => ({
  threadId: randomUUID(),
  runId: randomUUID(),
  messages: [{ id: "u1", role: "user", content: "who am I?" }],
  tools: [],
  context: [],
  ...extra,
});

describe("auth on: the run's user is the authenticated one", () => {
  let t: TestServer;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    t = await startTestServer({ graphs: GRAPHS, auth: AUTH });
    alice = new Client({ apiUrl: t.url, apiKey: "key-alice" });
    bob = new Client({ apiUrl: t.url, apiKey: "key-bob" });
  });
  afterAll(async () => {
    await t.close();
  });

  it("a node and a subgraph node see ctx.user, and LangGraph's configurable keys, as the caller", async () => {
    const thread = await alice.threads.create();
    const values = (await alice.runs.wait(thread.thread_id, "whoami", { input: {} })) as Record<string, unknown>;
    expect(values.who).toEqual({ id: "alice" });
    expect(values.subWho).toEqual({ id: "alice" });
    expect(values.authUserId).toBe("alice");
    expect(values.authUser).toMatchObject({ identity: "alice", is_authenticated: true });
    expect(values.configUserId).toBe("alice");
    const stateless = (await bob.runs.wait(null, "whoami", { input: {} })) as Record<string, unknown>;
    expect(stateless.who).toEqual({ id: "bob" });
  });

  it("an assistant's stored config cannot name the user: bob's assistant runs as bob", async () => {
    const made = await bob.assistants.create({ graphId: "whoami", config: { configurable: { model: "m" } } });
    const values = (await bob.runs.wait(null, made.assistant_id, { input: {} })) as Record<string, unknown>;
    expect(values.who).toEqual({ id: "bob" });
  });

  it("a forged user is a 400 naming the key, through every REST door, and nothing is stored", async () => {
    const thread = await alice.threads.create();
    const T = thread.thread_id;
    const forged = [
      { config: { configurable: { user_id: "bob" } }, key: "user_id" },
      { config: { configurable: { langgraph_auth_user_id: "bob" } }, key: "langgraph_auth_user_id" },
      { config: { configurable: { langgraph_auth_user: { identity: "bob" } } }, key: "langgraph_auth_user" },
      { context: { langgraph_auth_permissions: ["admin"] }, key: "langgraph_auth_permissions" },
      { context: { user_id: "bob" }, key: "user_id" },
    ];
    for (const { key, ...payload } of forged) {
      const body = { assistant_id: "whoami", input: {}, ...payload };
      for (const path of [
        `/threads/${T}/runs`,
        `/threads/${T}/runs/wait`,
        `/threads/${T}/runs/stream`,
        "/runs/wait",
        "/runs/stream",
        "/runs",
      ]) {
        const res = await call(t, "POST", path, "key-alice", body);
        expect([path, key, res.status]).toEqual([path, key, 400]);
        expect(res.json()).toMatchObject({ error: "INVALID_ARGUMENT" });
        expect(String(res.json().message)).toContain(key);
      }
      const batch = await call(t, "POST", "/runs/batch", "key-alice", [{ assistant_id: "whoami", input: {} }, body]);
      expect([key, batch.status, batch.text.includes(key)]).toEqual([key, 400, true]);
      const cron = await call(t, "POST", `/threads/${T}/runs/crons`, "key-alice", { ...body, schedule: "* * * * *" });
      expect([key, cron.status, cron.text.includes(key)]).toEqual([key, 400, true]);
      const statelessCron = await call(t, "POST", "/runs/crons", "key-alice", { ...body, schedule: "* * * * *" });
      expect([key, statelessCron.status, statelessCron.text.includes(key)]).toEqual([key, 400, true]);
      const assistant = await call(t, "POST", "/assistants", "key-alice", { graph_id: "whoami", ...payload });
      expect([key, assistant.status, assistant.text.includes(key)]).toEqual([key, 400, true]);
    }
    // the official client meets the same 400
    await expect(
      alice.runs.wait(T, "whoami", { input: {}, config: { configurable: { user_id: "bob" } } }),
    ).rejects.toThrow(/400/);
    const mine = await alice.assistants.create({ graphId: "whoami" });
    const patched = await call(t, "PATCH", `/assistants/${mine.assistant_id}`, "key-alice", {
      config: { configurable: { langgraph_auth_user_id: "bob" } },
    });
    expect([patched.status, patched.text.includes("langgraph_auth_user_id")]).toEqual([400, true]);
    // nothing the refused requests asked for happened
    expect(await alice.runs.list(T)).toEqual([]);
    expect(await alice.crons.search({})).toEqual([]);
    expect(((await alice.runs.wait(T, "whoami", { input: {} })) as Record<string, unknown>).who).toEqual({
      id: "alice",
    });
  });

  it("AG-UI over SSE and over the WebSocket: forwardedProps or state naming a user is refused, naming the key", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ forwardedProps: { configurable: { user_id: "alice" } } }, "user_id"],
      [{ forwardedProps: { config: { configurable: { langgraph_auth_user_id: "alice" } } } }, "langgraph_auth_user_id"],
      [{ forwardedProps: { context: { langgraph_auth_user: { identity: "alice" } } } }, "langgraph_auth_user"],
      [{ state: { user_id: "alice" } }, "user_id"],
    ];
    for (const [extra, key] of cases) {
      const input = agUiInput(extra);
      const sse = await call(t, "POST", "/ag-ui/whoami", "key-bob", input);
      expect([key, sse.status]).toEqual([key, 400]);
      expect(String(sse.json().message)).toContain(key);
      const ws = await agUiOverWs(t, "key-bob", agUiInput(extra));
      expect(ws.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "INVALID_ARGUMENT" });
      expect(String(ws.at(-1)?.message)).toContain(key);
      expect((await call(t, "GET", `/threads/${input.threadId}`, "key-bob")).status).toBe(404);
    }
    // and without a forged key, the AG-UI run acts for the authenticated user
    const ws = await agUiOverWs(t, "key-bob", agUiInput());
    expect(ws.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { who: { id: "bob" }, subWho: { id: "bob" } } });
  });

  it("an app's per-thread data goes with its thread: another user never reads it, nor finds it under the same id later", async () => {
    const T = `shared-${randomUUID()}`;
    await alice.threads.create({ threadId: T });
    await alice.runs.wait(T, "notes", { input: {} });
    expect((await call(t, "PUT", `/apps/notes/notes/${T}`, "key-alice", { text: "alice's secret" })).status).toBe(200);
    expect((await call(t, "GET", `/apps/notes/notes/${T}`, "key-alice")).json()).toEqual({ text: "alice's secret" });
    // bob may not read it, nor overwrite it
    expect((await call(t, "GET", `/apps/notes/notes/${T}`, "key-bob")).status).toBe(404);
    expect((await call(t, "PUT", `/apps/notes/notes/${T}`, "key-bob", { text: "bob was here" })).status).toBe(404);
    expect((await call(t, "GET", `/apps/notes/notes/${T}`, "key-alice")).json()).toEqual({ text: "alice's secret" });
    // alice deletes the thread; bob makes one with the same id and finds nothing of hers
    await alice.threads.delete(T);
    await bob.threads.create({ threadId: T });
    expect((await call(t, "GET", `/apps/notes/notes/${T}`, "key-bob")).json()).toEqual({ text: null });
  });

  it("app code (the run service, which app routes, crons and the CLI use) is refused the same way; an app's run acts for the thread's owner", async () => {
    await expect(
      t.server.runs.start({
        assistantId: "whoami",
        as: "app",
        input: {},
        kwargs: { config: { configurable: { user_id: "alice" } } },
      }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: { key: "user_id" } });
    const thread = await alice.threads.create();
    const end = await t.server.runs.invoke({ assistantId: "whoami", threadId: thread.thread_id, as: "app", input: {} });
    expect(end.values.who).toEqual({ id: "alice" });
  });

  it("a stateless run's temporary thread takes the app's data with it", async () => {
    const threads: string[] = [];
    const hooked = t.server.runs.onThreadDeleted(({ threadId }) => {
      threads.push(threadId);
    });
    try {
      const run = await alice.runs.create(null, "whoami", { input: {} });
      await alice.runs.join(run.thread_id, run.run_id).catch(() => undefined);
      for (let i = 0; i < 200 && !threads.includes(run.thread_id); i++) await new Promise((r) => setTimeout(r, 25));
      expect(threads).toContain(run.thread_id);
    } finally {
      hooked();
    }
  });
});

describe("crons run as their creator", () => {
  it("a cron tick's node sees ctx.user = the cron's creator", async () => {
    const clock = new ManualClock(at("10:00:30"));
    const dir = mkdtempSync(join(tmpdir(), "trellis-identity-crons-"));
    // the cron loop's timer is on the manual clock, far away: the test takes the tick with tick()
    const server = await createServer(
      {
        graphs: GRAPHS,
        saver: { kind: "sqlite", path: join(dir, "trellis.sqlite") },
        baseDir: PACKAGE_DIR,
        auth: AUTH,
      },
      { env: {}, crons: { clock, pollMs: 1e12 } },
    );
    const { url } = await server.listen(0);
    try {
      const alice = new Client({ apiUrl: url, apiKey: "key-alice" });
      const thread = await alice.threads.create();
      await alice.crons.createForThread(thread.thread_id, "whoami", { schedule: "* * * * *", input: {} });
      await moveTo(clock, at("10:01:00"));
      const [runId] = await server.crons.tick();
      await alice.runs.join(thread.thread_id, runId as string);
      const values = (await alice.threads.getState(thread.thread_id)).values as Record<string, unknown>;
      expect(values.who).toEqual({ id: "alice" });
      expect(values.authUserId).toBe("alice");
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("auth off: there is no user, and a thread id is never one", () => {
  let t: TestServer;
  let client: Client;
  beforeAll(async () => {
    t = await startTestServer({ graphs: GRAPHS });
    client = new Client({ apiUrl: t.url, apiKey: null });
  });
  afterAll(async () => {
    await t.close();
  });

  it("ctx.user is null, langgraph_auth_user null and its id empty; a client's user_id passes through", async () => {
    const thread = await client.threads.create({ threadId: "alice" });
    const values = (await client.runs.wait(thread.thread_id, "whoami", { input: {} })) as Record<string, unknown>;
    expect(values.who).toBeNull();
    expect(values.subWho).toBeNull();
    expect(values.authUser).toBeNull();
    expect(values.authUserId).toBe("");
    expect(values.configUserId).toBe("absent");
    const own = (await client.runs.wait(thread.thread_id, "whoami", {
      input: {},
      config: { configurable: { user_id: "u1" } },
    })) as Record<string, unknown>;
    expect(own.configUserId).toBe("u1");
    // an AG-UI thread id equal to a user's name is not that user
    const ws = await agUiOverWs(t, "none", agUiInput({ threadId: "alice" }));
    expect(ws.at(-1)).toMatchObject({ type: "RUN_FINISHED", result: { who: null, authUserId: "" } });
  });

  it("LangGraph's auth keys stay the server's: a client sending one gets a 400 naming it", async () => {
    await expect(
      client.runs.wait(null, "whoami", { input: {}, config: { configurable: { langgraph_auth_user_id: "alice" } } }),
    ).rejects.toThrow(/400/);
    const res = await call(t, "POST", "/runs/wait", null, {
      assistant_id: "whoami",
      input: {},
      config: { configurable: { langgraph_auth_user_id: "alice" } },
    });
    expect(res.status).toBe(400);
    expect(String(res.json().message)).toContain("langgraph_auth_user_id");
  });
});
