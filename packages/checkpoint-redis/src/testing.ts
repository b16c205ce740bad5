import { randomBytes } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import { Redis } from "ioredis";

// Test helpers for anything that needs a real Redis: the saver's own tests, the end-to-end and
// reliability suites, the apps. Exported as `@trellis/checkpoint-redis/testing`.

/**
 * Where tests find Redis: `TRELLIS_REDIS_URL`, else the local server.
 *
 * @example
 * const redis = new Redis(REDIS_URL);
 */
export const REDIS_URL = process.env.TRELLIS_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Resolves true when Redis answers; under CI a missing server fails the run, elsewhere the caller skips
 * with a loud warning (see `requireService`).
 *
 * @example
 * const redis = await requireRedis();
 * describe.skipIf(!redis)("on Redis", () => { … });
 */
export function requireRedis(): Promise<boolean> {
  return requireService(
    "Redis",
    async () => {
      const client = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.ping();
      } finally {
        client.disconnect();
      }
    },
    { hint: `start it on 127.0.0.1:6379 or set TRELLIS_REDIS_URL (now ${REDIS_URL})` },
  );
}

/**
 * A key prefix of its own for one test run, so runs never share keys.
 *
 * @example
 * const prefix = testPrefix("e2e"); // trellis-e2e-1a2b3c4d5e:
 */
export function testPrefix(label = "test"): string {
  return `trellis-${label}-${randomBytes(5).toString("hex")}:`;
}

/**
 * Deletes every key under `prefix`; returns how many.
 *
 * @example
 * afterAll(() => deletePrefix(prefix));
 */
export async function deletePrefix(prefix: string): Promise<number> {
  const client = new Redis(REDIS_URL);
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    await client.quit();
  }
  return deleted;
}
