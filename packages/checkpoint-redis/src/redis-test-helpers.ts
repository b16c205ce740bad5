import { randomBytes } from "node:crypto";
import type { CorruptionTarget } from "@trellis/checkpoint/testing";
import { requireService } from "@trellis/checkpoint/testing";
import { Redis } from "ioredis";

/** Where the integration tests find Redis. @internal */
export const REDIS_URL = process.env.TRELLIS_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Resolves true when Redis answers; under CI a missing server fails the run (see requireService). @internal */
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

/** A key prefix of its own for one test run. @internal */
export function testPrefix(label = "test"): string {
  return `trellis-${label}-${randomBytes(5).toString("hex")}:`;
}

/** Deletes every key under `prefix`; returns how many. @internal */
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

/** Changes one letter of a stored item behind the saver's back, keeping its checksum. @internal */
export async function corruptRedisItem(client: Redis, threadKey: string, target: CorruptionTarget): Promise<void> {
  const { namespace: ns, checkpointId: id } = target;
  const hash = `${threadKey}:${{ checkpoint: "c", blob: "b", write: "w" }[target.row]}`;
  let field = `${ns}\u0000${id}`;
  if (target.row === "blob") {
    const fields = await client.hkeys(hash);
    const match = fields.find((f) => f.startsWith(`${ns}\u0000`) && f.endsWith(`\u0000${id}`));
    if (!match) throw new Error(`no blob to corrupt for checkpoint ${id}`);
    field = match;
  }
  const value = await client.hget(hash, field);
  if (value === null) throw new Error(`no ${target.row} to corrupt for checkpoint ${id}`);
  // Keep the 16-character checksum (and a blob's header) intact: change the content after it.
  const from = target.row === "blob" ? value.indexOf("\u0000", 17) + 1 : target.row === "checkpoint" ? 16 : 0;
  await client.hset(hash, field, value.slice(0, from) + flipOneLetter(value.slice(from)));
}

function flipOneLetter(text: string): string {
  const start = Math.floor(text.length / 2);
  for (let k = 0; k < text.length; k++) {
    const i = (start + k) % text.length;
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) return text.slice(0, i) + String.fromCharCode(c === 122 ? 97 : c + 1) + text.slice(i + 1);
  }
  return `${text} `;
}
