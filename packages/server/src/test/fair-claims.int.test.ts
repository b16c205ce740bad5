/**
 * Fair shares in scale-out: PostgreSQL for runs (claims are its statements) and the Redis queue that
 * wakes workers, through HTTP with auth on and a server in a child process: bob's 1,000 queued runs do
 * not hold alice's run behind them.
 */
import { randomBytes } from "node:crypto";
import { dropSchema, testSchema } from "@trellis/checkpoint-postgres/testing";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { aliceAfterBobsThousand } from "./fair-claims.js";
import { POSTGRES_URL, REDIS_URL, requirePostgres, requireRedis } from "./scale-out-services.js";

const postgres = await requirePostgres();
const redis = await requireRedis();
const schema = testSchema("fair");
const prefix = `trellis-fair-${randomBytes(4).toString("hex")}:`;

afterAll(async () => {
  if (postgres) await dropSchema(schema);
  if (redis) {
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  }
});

describe.skipIf(!postgres || !redis)("fair shares between users (Postgres + Redis queue)", () => {
  it("alice's run starts before most of bob's 1,000 queued runs", async () => {
    const { aheadOfAlice, bobQueued } = await aliceAfterBobsThousand({
      saver: { kind: "postgres", url: POSTGRES_URL, schema },
      queue: { kind: "redis", url: REDIS_URL, prefix, concurrency: 2 },
    });
    console.log(
      `[fair shares, Postgres + Redis] bob had ${bobQueued} runs queued; ${aheadOfAlice} of them started before alice's`,
    );
    expect(bobQueued).toBeGreaterThan(200);
    expect(aheadOfAlice).toBeLessThan(20);
  }, 120_000);
});
