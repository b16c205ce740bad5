/**
 * The services the server's scale-out tests need — PostgreSQL for the run store and Redis for the queue
 * and the event fan-out — checked once per file with the suite's rule (locally a loud skip, with
 * `CI=true` a failure), each run under its own schema and key prefix.
 */
import { requireService } from "@trellis/checkpoint/testing";
import { POSTGRES_URL, requirePostgres } from "@trellis/checkpoint-postgres/testing";
import { Redis } from "ioredis";

export { POSTGRES_URL, requirePostgres };

/** Where the tests find Redis: `TRELLIS_REDIS_URL`, else the local server. */
export const REDIS_URL = process.env.TRELLIS_REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Whether Redis answers (false: the file's tests skip, loudly; under `CI=true` it throws).
 *
 * @example
 * const redis = await requireRedis();
 * describe.skipIf(!redis)("the Redis queue", () => { … });
 */
export function requireRedis(): Promise<boolean> {
  return requireService(
    "Redis",
    async () => {
      const r = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0 });
      await r.connect();
      await r.ping();
      r.disconnect();
    },
    { hint: "start it on 127.0.0.1:6379 or set TRELLIS_REDIS_URL" },
  );
}
