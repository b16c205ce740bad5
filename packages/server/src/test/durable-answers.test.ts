import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { SqliteRunStore } from "../stores/sqlite/sqlite-run-store.js";
import { eventually, startTestServer, type TestServer } from "./harness.js";

// The durability rule of the SQLite run store (docs/server.md, "Durability"): its bookkeeping commits
// without a disk sync (synchronous=NORMAL), and nothing leaves the server — an answer, a stream's
// headers, a stream's event — before those commits are synced. Read through the store's own counters
// on its real code path: no mock.

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function sqliteStore(server: TestServer): SqliteRunStore {
  const store = server.server.store;
  if (!(store instanceof SqliteRunStore)) throw new Error("the test server should run on SQLite");
  return store;
}

async function post(url: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: signal ?? null,
  });
}

describe("durable answers (SQLite)", () => {
  it("commits bookkeeping without a disk sync and syncs it before each answer and stream header", async () => {
    // no workers: nothing commits behind the requests' backs
    t = await startTestServer({}, { workers: 0 });
    const store = sqliteStore(t);
    const counts = () => ({ ...store.commitCounts });

    let before = counts();
    const thread = (await (await post(`${t.url}/threads`, {})).json()) as { thread_id: string };
    expect(store.commitCounts.quick).toBeGreaterThan(before.quick); // the thread's row: a quick commit
    expect(store.commitCounts.synced).toBe(before.synced + 1); // synced once before the answer
    expect(store.unsynced).toBe(false);

    before = counts();
    const run = await post(`${t.url}/threads/${thread.thread_id}/runs`, { assistant_id: "slow", input: {} });
    expect(run.status).toBe(200);
    expect(store.commitCounts.quick).toBeGreaterThan(before.quick);
    expect(store.commitCounts.synced).toBe(before.synced + 1);
    expect(store.unsynced).toBe(false);

    // a stream: its headers confirm the run; they go out once the run's row is synced
    const other = (await (await post(`${t.url}/threads`, {})).json()) as { thread_id: string };
    before = counts();
    const abort = new AbortController();
    const stream = await post(
      `${t.url}/threads/${other.thread_id}/runs/stream`,
      { assistant_id: "slow", input: {} },
      abort.signal,
    );
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(store.commitCounts.quick).toBeGreaterThan(before.quick);
    expect(store.commitCounts.synced).toBe(before.synced + 1);
    expect(store.unsynced).toBe(false);
    abort.abort();

    // a read that follows nothing new costs no sync
    before = counts();
    expect((await fetch(`${t.url}/threads/${thread.thread_id}`)).status).toBe(200);
    expect(store.commitCounts.synced).toBe(before.synced);
  });

  it("a run's own commits are all quick: the answer to runs/wait waits for the one sync that covers them", async () => {
    t = await startTestServer();
    const store = sqliteStore(t);
    const thread = (await (await post(`${t.url}/threads`, {})).json()) as { thread_id: string };
    const before = { ...store.commitCounts };
    const answer = (await (
      await post(`${t.url}/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ask", input: {} })
    ).json()) as { __interrupt__?: unknown[] };
    expect(answer.__interrupt__).toHaveLength(1);
    // enqueued, claimed, attempt begun, finished (and its events): each a quick commit
    expect(store.commitCounts.quick - before.quick).toBeGreaterThanOrEqual(4);
    expect(store.commitCounts.synced).toBeGreaterThan(before.synced);
    // and each outlived the answer: the run is recorded as finished
    const runs = await store.listRuns(thread.thread_id, { limit: 10, offset: 0 });
    expect(runs.map((r) => r.status)).toEqual(["success"]);
  });

  it("a stored event is synced before a reader gets it (the SSE and WebSocket doors read through follow)", async () => {
    t = await startTestServer({}, { workers: 0 });
    const store = sqliteStore(t);
    const thread = (await (await post(`${t.url}/threads`, {})).json()) as { thread_id: string };
    const run = (await (
      await post(`${t.url}/threads/${thread.thread_id}/runs`, { assistant_id: "slow", input: {} })
    ).json()) as { run_id: string };
    await store.appendEvent(run.run_id, "custom", { n: 1 });
    expect(store.unsynced).toBe(true);
    const events = t.server.manager.follow(run.run_id, 0);
    const first = await events.next();
    expect(first.value).toMatchObject({ event: "custom", data: { n: 1 } });
    expect(store.unsynced).toBe(false);
    await events.return(undefined);
  });

  it("the WebSocket door announces a run (RUN_STARTED) only once its row is synced", async () => {
    t = await startTestServer({}, { workers: 0 });
    const store = sqliteStore(t);
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/ag-ui/chat/ws`);
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    try {
      const before = { ...store.commitCounts };
      const started = new Promise<{ type: string; unsynced: boolean }>((resolve) => {
        ws.once("message", (raw) =>
          resolve({ ...(JSON.parse(String(raw)) as { type: string }), unsynced: store.unsynced }),
        );
      });
      const messages = [{ id: "u1", role: "user", content: "hi" }];
      ws.send(JSON.stringify({ threadId: randomUUID(), runId: randomUUID(), messages, tools: [], context: [] }));
      const first = await started;
      expect(first.type).toBe("RUN_STARTED");
      expect(store.commitCounts.quick).toBeGreaterThan(before.quick); // the thread and the run, queued
      expect(first.unsynced).toBe(false);
      expect(store.commitCounts.synced).toBeGreaterThan(before.synced);
    } finally {
      ws.close();
    }
  });

  it("a stateless run leaves no thread, run, event or checkpoint behind", async () => {
    t = await startTestServer();
    const db = (t.server.saver as SqliteSaver).database;
    const rows = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const answer = await post(`${t.url}/runs/wait`, { assistant_id: "slow", input: { delayMs: 0 } });
    expect(((await answer.json()) as { log: string[] }).log).toEqual(["a", "b", "c"]);
    await eventually(async () => rows("server_threads") === 0 && rows("threads") === 0, 5_000);
    expect(rows("server_runs")).toBe(0);
    expect(rows("server_run_events")).toBe(0);
    expect(rows("checkpoints")).toBe(0);
    expect(rows("writes")).toBe(0);
  });

  it("a stateless run's checkpoints commit quick, synced by its answer; a thread's run keeps the saver's FULL but for its input", async () => {
    t = await startTestServer();
    const saver = t.server.saver as SqliteSaver;
    const store = sqliteStore(t);
    // the connection's `synchronous` level at each checkpoint write and checkpoint deletion, and
    // whether the runtime marked a put quick (its input: the saver commits it at NORMAL itself)
    const levels: Array<{ call: string; level: number; quick?: boolean }> = [];
    for (const call of ["put", "putWrites", "commit", "deleteThread"] as const) {
      const original = (saver[call] as (...args: unknown[]) => Promise<unknown>).bind(saver);
      (saver as unknown as Record<string, unknown>)[call] = (...args: unknown[]) => {
        const level = Number(saver.database.pragma("synchronous", { simple: true }));
        const quick = call === "put" ? (args[0] as { quick?: boolean }).quick === true : undefined;
        levels.push(quick === undefined ? { call, level } : { call, level, quick });
        return original(...args);
      };
    }
    const answer = await post(`${t.url}/runs/wait`, { assistant_id: "slow", input: { delayMs: 0 } });
    expect(((await answer.json()) as { log: string[] }).log).toEqual(["a", "b", "c"]);
    expect(store.unsynced).toBe(false); // the answer synced them
    await eventually(async () => levels.some((l) => l.call === "deleteThread"), 5_000); // its thread, after the answer
    expect(levels.filter((l) => l.call !== "deleteThread").length).toBeGreaterThan(0);
    expect(new Set(levels.map((l) => l.level))).toEqual(new Set([1])); // all at NORMAL

    levels.length = 0;
    const thread = (await (await post(`${t.url}/threads`, {})).json()) as { thread_id: string };
    await post(`${t.url}/threads/${thread.thread_id}/runs/wait`, { assistant_id: "slow", input: { delayMs: 0 } });
    // its input's checkpoint, written before any node ran, is a quick put made as one of the store's
    // quick commits, so the next answer syncs it however soon it comes (a GET of the thread's state
    // while the first node runs shows it)
    expect(levels[0]).toEqual({ call: "put", level: 1, quick: true });
    const rest = levels.slice(1);
    expect(rest.length).toBeGreaterThan(0);
    expect(new Set(rest.map((l) => l.level))).toEqual(new Set([2])); // the saver's own FULL
    expect(rest.some((l) => l.quick)).toBe(false);
    expect(store.unsynced).toBe(false); // the answer synced it with the store's commits
  });

  it("a store closed with quick commits syncs them (a tool that wrote and exits answers no one)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "trellis-durable-"));
    const saver = new SqliteSaver({ filename: join(dir, "t.sqlite") });
    try {
      const store = new SqliteRunStore(saver.database);
      const now = new Date().toISOString();
      const thread = { createdAt: now, updatedAt: now, metadata: {}, status: "idle" as const, owner: null };
      await store.createThread({ ...thread, threadId: "t1", graphId: null, error: null }, "raise");
      expect(store.unsynced).toBe(true);
      await store.close();
      expect(store.unsynced).toBe(false);
      expect(store.commitCounts).toEqual({ quick: 1, synced: 1 });
      // the connection stays at the saver's level: FULL
      expect(saver.database.pragma("synchronous", { simple: true })).toBe(2);
    } finally {
      await saver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
