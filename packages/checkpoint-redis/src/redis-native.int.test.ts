import { setTimeout as sleep } from "node:timers/promises";
import { latest, putStep, uniqueThreadId } from "@trellis/checkpoint/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisSaver } from "./redis-saver.js";
import { deletePrefix, REDIS_URL, requireRedis, testPrefix } from "./redis-test-helpers.js";

const available = await requireRedis();
const keyPrefix = testPrefix("native");

describe.skipIf(!available)("RedisSaver on a real Redis", () => {
  let saver: RedisSaver;
  let admin: Redis;
  let n = 0;
  const nextId = () => `${Date.now().toString(16)}-${String(++n).padStart(6, "0")}`;
  const keysOf = (threadId: string) => admin.keys(`${saver.threadKey(threadId).replace(/[{}*?[\]]/g, "\\$&")}*`);

  beforeAll(() => {
    saver = new RedisSaver({ url: REDIS_URL, keyPrefix });
    admin = new Redis(REDIS_URL);
  });

  afterAll(async () => {
    await saver?.close();
    await admin?.quit();
    if (available) await deletePrefix(keyPrefix);
  });

  it("keeps every key of a thread under the prefix and the thread's hash tag", async () => {
    const threadId = uniqueThreadId();
    const cp = await putStep(saver, { threadId, id: nextId(), full: { a: 1 }, writes: [w(1)] });
    await putStep(saver, { threadId, id: nextId(), namespace: "sub", full: { s: 1 } });
    const keys = await keysOf(threadId);
    expect(keys.length).toBeGreaterThanOrEqual(6);
    for (const key of keys) expect(key.startsWith(`${keyPrefix}{${threadId}}:`)).toBe(true);
    const other = new RedisSaver({ url: REDIS_URL, keyPrefix: `${keyPrefix}other:` });
    expect(await other.get({ threadId })).toBeUndefined();
    await other.close();
    expect((await saver.get({ threadId, checkpointId: cp.id }))?.pendingWrites).toEqual([w(1)]);
  });

  it("expires a thread natively: every key carries the TTL, puts refresh it, setTtl(null) removes it", async () => {
    const threadId = uniqueThreadId();
    const first = await putStep(saver, { threadId, id: nextId(), full: { a: 1 } });
    await saver.setTtl(threadId, 60_000);
    // A namespace created after setTtl gets the TTL too.
    await putStep(saver, { threadId, id: nextId(), namespace: "late", full: { s: 1 } });
    for (const key of await keysOf(threadId)) {
      const ttl = await admin.pttl(key);
      expect(ttl, key).toBeGreaterThan(55_000);
      expect(ttl, key).toBeLessThanOrEqual(60_000);
    }
    await saver.setTtl(threadId, null);
    for (const key of await keysOf(threadId)) expect(await admin.pttl(key), key).toBe(-1);
    await saver.setTtl(threadId, 150);
    await putStep(saver, { threadId, id: nextId(), parent: first, full: { a: 2 } });
    await sleep(400);
    expect(await keysOf(threadId)).toEqual([]);
    expect(await saver.get({ threadId })).toBeUndefined();
    expect(await saver.sweepExpired()).toBe(0);
  });

  it("reloads its scripts after SCRIPT FLUSH", async () => {
    const threadId = uniqueThreadId();
    await putStep(saver, { threadId, id: nextId(), full: { a: 1 } });
    await admin.script("FLUSH");
    expect((await latest(saver, threadId)).values).toEqual({ a: 1 });
  });
});

function w(value: unknown) {
  return { taskId: "t", channel: "a", value };
}
