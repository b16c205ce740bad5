import { randomBytes } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import { Redis } from "ioredis";
import pg from "pg";

/** Where the integration tests find PostgreSQL. @internal */
export const POSTGRES_URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Where the tests find Redis. @internal */
export const REDIS_URL = process.env.TRELLIS_REDIS_TEST_URL ?? "redis://127.0.0.1:6379";

/** A name of its own for one test run: a key prefix or a schema. @internal */
export function uniqueName(label: string): string {
  return `${label}_${randomBytes(5).toString("hex")}`;
}

/** Resolves true when PostgreSQL answers; under CI a missing server fails the run. @internal */
export function requirePostgres(): Promise<boolean> {
  return requireService(
    "PostgreSQL",
    async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
      await client.connect();
      try {
        await client.query("SELECT 1");
      } finally {
        await client.end();
      }
    },
    {
      hint: `start it on 127.0.0.1:5432 (trust auth, database test) or set TRELLIS_POSTGRES_URL (now ${POSTGRES_URL})`,
    },
  );
}

/** Resolves true when Redis answers PING; under CI a missing server fails the run. @internal */
export function requireRedis(): Promise<boolean> {
  return requireService(
    "Redis",
    async () => {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      redis.on("error", () => {});
      try {
        await redis.connect();
        await redis.ping();
      } finally {
        redis.disconnect();
      }
    },
    { hint: `start it on 127.0.0.1:6379 or set TRELLIS_REDIS_TEST_URL (now ${REDIS_URL})` },
  );
}

/** Drops a test schema and everything in it. @internal */
export async function dropPostgresSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
