import { randomBytes } from "node:crypto";

// The shared test helpers of the savers: where PostgreSQL and Redis are, and how a missing one fails
// CI and skips loudly elsewhere.
export { dropSchema as dropPostgresSchema, POSTGRES_URL, requirePostgres } from "@trellis/checkpoint-postgres/testing";
export { REDIS_URL, requireRedis } from "@trellis/checkpoint-redis/testing";

/** A name of its own for one test run: a key prefix or a schema. @internal */
export function uniqueName(label: string): string {
  return `${label}_${randomBytes(5).toString("hex")}`;
}
