/**
 * Where the suites find PostgreSQL and Redis, the probes that skip loudly (or fail under CI) when one
 * is missing, and per-run names: the shared helpers of `@trellis/checkpoint-postgres/testing` and
 * `@trellis/checkpoint-redis/testing`, plus one label for schemas and key prefixes alike.
 */
import { testSchema } from "@trellis/checkpoint-postgres/testing";

export { dropSchema, POSTGRES_URL, requirePostgres } from "@trellis/checkpoint-postgres/testing";
export { deletePrefix as deleteKeys, REDIS_URL, requireRedis } from "@trellis/checkpoint-redis/testing";

/**
 * A name no other run uses, for a schema or key prefix: `trellis_e2e_<kind>_<10 hex>`.
 *
 * @example
 * const schema = runLabel("crash"); // "trellis_e2e_crash_3f9a0c1b2d"
 */
export function runLabel(kind: string): string {
  return testSchema(`e2e_${kind}`);
}
