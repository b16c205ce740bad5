import { createServer } from "node:net";
import { Redis } from "ioredis";
import { REDIS_URL } from "./service-urls.js";

/** Deletes every key under `prefix` (test cleanup). @internal */
export async function deleteKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 200);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== "0");
    return deleted;
  } finally {
    redis.disconnect();
  }
}

/** A Redis client for inspecting what the app stored. @internal */
export function inspectRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
}

/** A `redis://` URL on a local port nothing listens on: the Redis-down path. @internal */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
  });
  await new Promise((resolve) => server.close(resolve));
  return `redis://127.0.0.1:${port}`;
}
