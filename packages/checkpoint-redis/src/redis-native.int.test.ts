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

  it("keeps shared bodies under the thread's key: they carry its TTL and go with deleteThread", async () => {
    const threadId = uniqueThreadId();
    const long = "shared body ".repeat(200);
    await putStep(saver, { threadId, id: nextId(), full: { a: long, b: long }, writes: [w(long)] });
    const bodies = `${saver.threadKey(threadId)}:v`;
    expect(await admin.hlen(bodies)).toBe(1);
    await saver.setTtl(threadId, 60_000);
    expect(await admin.pttl(bodies)).toBeGreaterThan(55_000);
    await saver.deleteThread(threadId);
    expect(await keysOf(threadId)).toEqual([]);
  });

  it("reads values stored before bodies were shared (inline, lower-case kind, four-field writes)", async () => {
    const threadId = uniqueThreadId();
    const long = { doc: "stored inline ".repeat(200) };
    const cp = await putStep(saver, { threadId, id: nextId(), full: { doc: long }, writes: [w(long)] });
    // Rewrite the rows the way the saver stored them before: the body inline, no `:v` hash.
    const key = saver.threadKey(threadId);
    const [ref] = await admin.hkeys(`${key}:v`);
    const body = (await admin.hget(`${key}:v`, ref as string)) as string;
    const field = `\u0000doc\u0000${cp.id}`;
    const blob = (await admin.hget(`${key}:b`, field)) as string;
    expect(blob[16]).toBe("F");
    await admin.hset(
      `${key}:b`,
      field,
      `${blob.slice(0, 16)}f${blob.slice(17, blob.indexOf("\u0000", 17) + 1)}${body}`,
    );
    const writes = JSON.parse((await admin.hget(`${key}:w`, `\u0000${cp.id}`)) as string) as string[][];
    await admin.hset(`${key}:w`, `\u0000${cp.id}`, JSON.stringify(writes.map(([t, c, sum]) => [t, c, sum, body])));
    await admin.del(`${key}:v`);

    const tuple = await latest(saver, threadId);
    expect(tuple.values).toEqual({ doc: long });
    expect(tuple.pendingWrites).toEqual([w(long)]);
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
