import { randomBytes } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import { Redis } from "ioredis";
import pg from "pg";

/**
 * Where the suites find PostgreSQL (trust auth, database `test`).
 *
 * @example
 * new PostgresSaver({ connectionString: POSTGRES_URL, schema: runLabel("pg") });
 */
export const POSTGRES_URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Where the suites find Redis.
 *
 * @example
 * new RedisSaver({ url: REDIS_URL, keyPrefix: `${runLabel("redis")}:` });
 */
export const REDIS_URL = process.env.TRELLIS_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * True when PostgreSQL answers; under CI a missing server fails the run, elsewhere it warns loudly.
 *
 * @example
 * const postgres = await requirePostgres();
 * it.skipIf(!postgres)("…", async () => {});
 */
export function requirePostgres(): Promise<boolean> {
  return requireService(
    "PostgreSQL",
    async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
      await client.connect();
      await client.end();
    },
    { hint: `start it on 127.0.0.1:5432 or set TRELLIS_POSTGRES_URL (now ${POSTGRES_URL})` },
  );
}

/**
 * True when Redis answers; under CI a missing server fails the run, elsewhere it warns loudly.
 *
 * @example
 * const redis = await requireRedis();
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
 * A name no other run uses, for a schema or key prefix: `trellis_e2e_<kind>_<10 hex>`.
 *
 * @example
 * const schema = runLabel("crash"); // "trellis_e2e_crash_3f9a0c1b2d"
 */
export function runLabel(kind: string): string {
  return `trellis_e2e_${kind}_${randomBytes(5).toString("hex")}`;
}

/**
 * Drops a schema made by a test, with everything in it.
 *
 * @example
 * afterAll(() => dropSchema(schema));
 */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * Deletes every Redis key under `prefix`; returns how many.
 *
 * @example
 * afterAll(() => deleteKeys(prefix));
 */
export async function deleteKeys(prefix: string): Promise<number> {
  const client = new Redis(REDIS_URL);
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(
        cursor,
        "MATCH",
        `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
        "COUNT",
        1000,
      );
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    await client.quit();
  }
  return deleted;
}
