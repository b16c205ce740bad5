/**
 * SSE replay reads stored events in pages, so a stalled reader holds one page, not the whole run;
 * a follower that falls behind a live run drops its buffer and catches up from the store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventPage, StoredEvent } from "../stores/run-store.js";
import { startTestServer, TEST_GRAPHS, type TestServer } from "./harness.js";

let t: TestServer;
const calls: Array<{ afterSeq: number; limit: number | undefined; rows: number }> = [];

beforeAll(async () => {
  t = await startTestServer({
    graphs: { ...TEST_GRAPHS, chatty: { module: "./src/test/fixture-chatty.ts", graph: "chattyGraph" } },
  });
  const store = t.server.store;
  const original = store.eventsAfter.bind(store);
  store.eventsAfter = async (runId: string, afterSeq: number, page?: number | EventPage) => {
    const rows = await original(runId, afterSeq, page);
    calls.push({ afterSeq, limit: typeof page === "number" ? page : page?.limit, rows: rows.length });
    return rows;
  };
});
afterAll(async () => {
  await t.close();
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

async function chattyRun(count: number, waitMs = 0, chunkBytes = 0) {
  const thread = (await post("/threads", {})).thread_id as string;
  const run = await post(`/threads/${thread}/runs`, { assistant_id: "chatty", input: { count, waitMs, chunkBytes } });
  return run.run_id as string;
}

function consecutive(events: StoredEvent[]): boolean {
  return events.every((e, i) => e.seq === i + 1);
}

describe("SSE replay", () => {
  it("reads a finished run's events in pages: a reader that takes one event holds one page", async () => {
    const runId = await chattyRun(300);
    await t.server.manager.waitFor(runId);
    calls.length = 0;
    const follow = t.server.manager.follow(runId, 0, { pageSize: 50 });
    const first = await follow.next();
    expect((first.value as StoredEvent).seq).toBe(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ afterSeq: 0, limit: 50, rows: 50 });
    const rest: StoredEvent[] = [first.value as StoredEvent];
    for await (const e of follow) rest.push(e);
    expect(rest.length).toBeGreaterThan(300);
    expect(consecutive(rest)).toBe(true);
    expect(calls.every((c) => c.limit === 50 && c.rows <= 50)).toBe(true);
  });

  it("a follower stalled behind a live run drops its buffer and catches up from the store, in pages", async () => {
    // the run talks only after the follower has read what was stored and listens live
    const runId = await chattyRun(600, 300);
    calls.length = 0;
    const follow = t.server.manager.follow(runId, 0, { pageSize: 10 });
    const got: StoredEvent[] = [(await follow.next()).value as StoredEvent];
    await t.server.manager.waitFor(runId); // the follower is stalled meanwhile
    for await (const e of follow) got.push(e);
    expect(got.length).toBeGreaterThan(600);
    expect(consecutive(got)).toBe(true);
    expect(calls.every((c) => c.limit === 10 && c.rows <= 10)).toBe(true);
    // what the follower dropped while stalled came back from the store, page by page
    expect(calls.filter((c) => c.rows === 10).length).toBeGreaterThan(30);
  });

  it("a follower stalled behind a live run of large events drops its buffer by bytes, then catches up", async () => {
    // 40 live events of 64 KiB while stalled: over the 10 × 100 KB the live buffer may hold, far under
    // its 10 × 100 events
    const runId = await chattyRun(40, 300, 64 * 1024);
    calls.length = 0;
    const follow = t.server.manager.follow(runId, 0, { pageSize: 100, pageBytes: 100_000 });
    const got: StoredEvent[] = [(await follow.next()).value as StoredEvent];
    // a few events in: past the few stored before the node's 300 ms wait, so the follower reads live
    // events when it stalls
    while (got.length < 6) got.push((await follow.next()).value as StoredEvent);
    const stalledAt = calls.length;
    await t.server.manager.waitFor(runId);
    for await (const e of follow) got.push(e);
    expect(got.length).toBeGreaterThan(40);
    expect(consecutive(got)).toBe(true);
    // what was dropped while stalled came back from the store
    expect(calls.slice(stalledAt).some((c) => c.rows > 0)).toBe(true);
  });

  it("a replay over HTTP with Last-Event-ID still gets every event once", async () => {
    const runId = await chattyRun(250);
    await t.server.manager.waitFor(runId);
    const thread = (await t.server.store.getRun(runId))?.threadId as string;
    const res = await fetch(`${t.url}/threads/${thread}/runs/${runId}/stream`, { headers: { "Last-Event-ID": "7" } });
    const ids = [...(await res.text()).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(8);
    expect(ids.every((id, i) => id === 8 + i)).toBe(true);
    expect(ids.length).toBeGreaterThan(240);
  });
});
