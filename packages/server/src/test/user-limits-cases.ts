/**
 * The per-user limit cases every storage runs, through HTTP with auth on: the N+1th queued run, thread,
 * cron, store item or store byte is a 429 TOO_MANY_REQUESTS naming its limit, stores nothing, and
 * leaves other users untouched. The server executes no runs (an API-only process), so queued runs stay
 * queued.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import { startTestServer, type TestServer } from "./harness.js";

/** Registers the cases on `saver` (a fresh SQLite file when absent). */
export function userLimitCases(label: string, saver?: TrellisConfig["saver"]): void {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(
      {
        ...(saver ? { saver } : {}),
        auth: {
          enabled: true,
          credentials: [
            { user: "bob", apiKey: "key-bob" },
            { user: "alice", apiKey: "key-alice" },
          ],
        },
        limits: {
          queuedRunsPerUser: 3,
          threadsPerUser: 5,
          cronsPerUser: 2,
          storeItemsPerUser: 2,
          storeBytesPerUser: 300,
        },
      },
      { workers: 0 },
    );
  });
  afterAll(async () => {
    await t.close();
  });

  async function call(key: string, method: string, path: string, body?: unknown) {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  }

  function expectLimit(answer: { status: number; body: Record<string, unknown> }, limit: string, max: number) {
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({ error: "TOO_MANY_REQUESTS" });
    expect(answer.body.message).toContain(`limits.${limit} allows ${max}`);
  }

  const run = { assistant_id: "slow", input: { delayMs: 0 } };

  describe(`per-user limits (${label})`, () => {
    it("queued runs: a batch past the limit queues nothing; the next run is a 429; another user is free", async () => {
      expect((await call("key-bob", "POST", "/runs/batch", [run, run])).status).toBe(200);
      expectLimit(await call("key-bob", "POST", "/runs/batch", [run, run]), "queuedRunsPerUser", 3);
      expect((await t.server.store.pendingRunsOf?.("bob")) ?? 0).toBe(2);
      expect((await call("key-bob", "POST", "/runs", run)).status).toBe(200);
      expectLimit(await call("key-bob", "POST", "/runs", run), "queuedRunsPerUser", 3);
      expectLimit(await call("key-bob", "POST", "/runs/wait", run), "queuedRunsPerUser", 3);
      expect((await t.server.store.pendingRunsOf?.("bob")) ?? 0).toBe(3);
      expect((await call("key-alice", "POST", "/runs", run)).status).toBe(200);
    });

    it("threads: the next thread past the limit is a 429, made by any route", async () => {
      // bob has 3 threads (his queued runs'): two more, then none
      expect((await call("key-bob", "POST", "/threads", {})).status).toBe(200);
      const last = await call("key-bob", "POST", "/threads", {});
      expect(last.status).toBe(200);
      expectLimit(await call("key-bob", "POST", "/threads", {}), "threadsPerUser", 5);
      expectLimit(await call("key-bob", "POST", `/threads/${last.body.thread_id}/copy`, {}), "threadsPerUser", 5);
      expect(await t.server.store.countThreads({ owner: "bob" })).toBe(5);
      // an id already his is no new thread
      expect(
        (await call("key-bob", "POST", "/threads", { thread_id: last.body.thread_id, if_exists: "do_nothing" })).status,
      ).toBe(200);
      expect((await call("key-alice", "POST", "/threads", {})).status).toBe(200);
    });

    it("crons: the third is a 429", async () => {
      const cron = { assistant_id: "slow", schedule: "0 3 * * *" };
      expect((await call("key-bob", "POST", "/runs/crons", cron)).status).toBe(200);
      expect((await call("key-bob", "POST", "/runs/crons", cron)).status).toBe(200);
      expectLimit(await call("key-bob", "POST", "/runs/crons", cron), "cronsPerUser", 2);
      expect((await call("key-bob", "POST", "/runs/crons/count", {})).body).toBe(2);
      expect((await call("key-alice", "POST", "/runs/crons", cron)).status).toBe(200);
    });

    it("store: a new item past the count, or a value past the bytes, is a 429; replacing an item is not a new one", async () => {
      const put = (key: string, value: unknown) =>
        call("key-bob", "PUT", "/store/items", { namespace: ["notes"], key, value });
      expect((await put("a", { text: "one" })).status).toBe(204);
      expect((await put("b", { text: "two" })).status).toBe(204);
      expectLimit(await put("c", { text: "three" }), "storeItemsPerUser", 2);
      expect((await put("b", { text: "two, again" })).status).toBe(204);
      expectLimit(await put("b", { text: "x".repeat(400) }), "storeBytesPerUser", 300);
      const b = await call("key-bob", "GET", "/store/items?namespace=notes&key=b");
      expect(b.body.value).toEqual({ text: "two, again" });
      expect((await call("key-bob", "GET", "/store/items?namespace=notes&key=c")).body).toBeNull();
      expect(
        (await call("key-alice", "PUT", "/store/items", { namespace: ["notes"], key: "c", value: {} })).status,
      ).toBe(204);
    });
  });
}
