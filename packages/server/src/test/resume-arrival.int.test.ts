/**
 * One answer per pause, by the time the request arrived, in scale-out: two server processes (each
 * serving HTTP and executing runs) on one Postgres schema and one Redis queue. A burst of identical
 * plain resumes, spread over both processes on separate sockets, applies one answer; the second gate
 * stays pending. The arrival is compared with the thread's last change on the database's clock.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, startChildServer } from "./raw-socket.js";
import { type BurstTarget, oneAnswerPerBurst } from "./resume-burst.js";
import { POSTGRES_URL, REDIS_URL, requirePostgres, requireRedis } from "./scale-out-services.js";

const postgres = await requirePostgres();
const redis = await requireRedis();

const suffix = randomBytes(4).toString("hex");
const schema = `trellis_resume_${suffix}`;
const prefix = `trellis-test-resume-${suffix}:`;
const servers: ChildServer[] = [];
let target: BurstTarget;

beforeAll(async () => {
  if (!postgres || !redis) return;
  const overrides = {
    graphs: { "two-gates": { module: "./src/test/fixture-interview.ts", graph: "twoGates" } },
    saver: { kind: "postgres" as const, url: POSTGRES_URL, schema },
    queue: { kind: "redis" as const, url: REDIS_URL, prefix, concurrency: 2, heartbeatMs: 200, orphanAfterMs: 1_500 },
  };
  // one first, so the schema's migrations run once; then the second
  servers.push(await startChildServer(overrides));
  servers.push(await startChildServer(overrides));
  target = { urls: servers.map((s) => s.url), headers: { "x-api-key": "key-ana" }, graph: "two-gates" };
}, 90_000);

afterAll(async () => {
  for (const s of servers) await s.stop();
  if (postgres) {
    const c = new pg.Client({ connectionString: POSTGRES_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
  if (redis) {
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  }
});

describe.skipIf(!postgres || !redis)("a plain resume answers the pause pending when it arrived (two processes)", () => {
  it.each(["enqueue", "reject"] as const)(
    "20 concurrent identical resumes over two server processes (%s), 3 threads: one applied each",
    { timeout: 180_000 },
    async (strategy) => {
      await oneAnswerPerBurst(target, strategy);
      for (const s of servers) expect(s.alive()).toBe(true);
    },
  );
});
