import { connect, createServer, type Socket } from "node:net";
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

/** A TCP proxy in front of the test Redis that can be cut and restored: Redis going down and coming back. @internal */
export interface RedisProxy {
  url: string;
  /** Closes the listener and every open connection. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
}

/** Starts a {@link RedisProxy}. @internal */
export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: async () => {
      await listen(port);
    },
  };
}
