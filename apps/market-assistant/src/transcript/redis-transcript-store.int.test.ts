import { afterAll, describe, expect, it } from "vitest";
import { recordingLogger } from "../logger.js";
import { closedPortUrl, deleteKeys, inspectRedis, startRedisProxy } from "../test/redis-helpers.js";
import { REDIS_URL, requireRedis, uniqueName } from "../test/service-urls.js";
import type { ChatMessage } from "./chat-message.js";
import { RedisTranscriptStore } from "./redis-transcript-store.js";

const redisUp = await requireRedis();

const message = (thread_id: string, content: string): ChatMessage => ({
  id: `${thread_id}-${content}`,
  thread_id,
  role: "user",
  content,
  timestamp: "2025-01-01T00:00:00.000Z",
});

describe.skipIf(!redisUp)("RedisTranscriptStore (real Redis)", () => {
  const keyPrefix = `${uniqueName("ma-test")}:`;
  const inspect = inspectRedis();
  afterAll(async () => {
    await deleteKeys(keyPrefix);
    inspect.disconnect();
  });

  it("stores a thread as a JSON list whose TTL every append resets", async () => {
    const store = new RedisTranscriptStore({ url: REDIS_URL, keyPrefix, ttlSeconds: 120 });
    try {
      await store.append(message("t1", "one"));
      await inspect.expire(store.key("t1"), 5); // as if time had passed
      await store.append(message("t1", "two"));
      expect((await store.list("t1")).map((m) => m.content)).toEqual(["one", "two"]);
      expect(store.key("t1")).toBe(`${keyPrefix}thread:t1:messages`);
      const ttl = await inspect.ttl(store.key("t1"));
      expect(ttl).toBeGreaterThan(100);
      expect(ttl).toBeLessThanOrEqual(120);
      expect(await store.list("unknown")).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("expires keys after 24 hours by default", async () => {
    const store = new RedisTranscriptStore({ url: REDIS_URL, keyPrefix });
    try {
      await store.append(message("t2", "one"));
      const ttl = await inspect.ttl(store.key("t2"));
      expect(ttl).toBeGreaterThan(86_400 - 10);
      expect(ttl).toBeLessThanOrEqual(86_400);
    } finally {
      await store.close();
    }
  });

  it("fails fast while Redis is down and works again when it is back", async () => {
    const proxy = await startRedisProxy();
    const logger = recordingLogger();
    const store = new RedisTranscriptStore({ url: proxy.url, keyPrefix, logger });
    try {
      await store.append(message("t4", "before"));
      await proxy.cut();
      const started = Date.now();
      await expect(store.list("t4")).rejects.toThrow();
      await expect(store.append(message("t4", "lost"))).rejects.toThrow(/unreachable/);
      // within the store's 2 s timeout per call, not a hang (a margin a loaded machine keeps)
      expect(Date.now() - started).toBeLessThan(10_000);
      await proxy.restore();
      await expect
        .poll(
          () =>
            store.ping().then(
              () => "up",
              () => "down",
            ),
          { timeout: 10_000, interval: 100 },
        )
        .toBe("up");
      await store.append(message("t4", "after"));
      expect((await store.list("t4")).map((m) => m.content)).toEqual(["before", "after"]);
      expect(logger.lines.map((l) => l.level)).toEqual(["warn", "info"]);
    } finally {
      await store.close();
      await proxy.cut().catch(() => {});
    }
  });

  it("skips entries that are not chat messages, and says so", async () => {
    const logger = recordingLogger();
    const store = new RedisTranscriptStore({ url: REDIS_URL, keyPrefix, logger });
    try {
      await store.append(message("t3", "ok"));
      await inspect.rpush(store.key("t3"), "not json", JSON.stringify({ id: 1 }));
      expect((await store.list("t3")).map((m) => m.content)).toEqual(["ok"]);
      expect(logger.lines.filter((l) => l.level === "warn")).toHaveLength(2);
    } finally {
      await store.close();
    }
  });
});

describe("RedisTranscriptStore with Redis unreachable", () => {
  it("fails fast instead of hanging, logs once, and closes cleanly", async () => {
    const logger = recordingLogger();
    const store = new RedisTranscriptStore({ url: await closedPortUrl(), keyPrefix: "x:", logger, timeoutMs: 500 });
    const started = Date.now();
    await expect(store.list("t")).rejects.toThrow();
    await expect(store.append(message("t", "one"))).rejects.toThrow();
    await expect(store.ping()).rejects.toThrow();
    // three calls of a 500 ms timeout, not a hang (a margin a loaded machine keeps)
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(logger.lines.filter((l) => /unreachable/.test(l.message))).toHaveLength(1);
    await store.close();
  });
});
