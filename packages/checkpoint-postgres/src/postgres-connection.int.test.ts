import { ManualClock } from "@trellis/checkpoint";
import { collect, putStep, stepRequest, uniqueThreadId } from "@trellis/checkpoint/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CuttingProxy } from "./cutting-proxy.js";
import { PostgresSaver } from "./postgres-saver.js";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "./postgres-test-helpers.js";

const available = await requirePostgres();
const schema = testSchema("conn");
const upstreamPort = Number(new URL(POSTGRES_URL).port || 5432);

describe.skipIf(!available)("PostgresSaver over a connection that breaks", () => {
  let proxy: CuttingProxy;
  let saver: PostgresSaver;
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  let ids = 0;
  const nextId = () => `cp-${String(++ids).padStart(6, "0")}`;

  beforeAll(async () => {
    proxy = await CuttingProxy.start(upstreamPort);
    const url = new URL(POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    saver = new PostgresSaver({
      connectionString: url.toString(),
      schema,
      clock,
      poolConfig: { max: 2, application_name: schema },
    });
    await saver.setup();
  });

  afterAll(async () => {
    await saver?.close();
    await proxy?.close();
    if (available) await dropSchema(schema);
  });

  it("the proxy really produces a commit the client never hears about", async () => {
    const url = new URL(POSTGRES_URL);
    url.host = `127.0.0.1:${proxy.port}`;
    const client = new pg.Client({ connectionString: url.toString() });
    client.on("error", () => {});
    await client.connect();
    await client.query(`CREATE TABLE "${schema}".probe (n int)`);
    await client.query("BEGIN");
    await client.query(`INSERT INTO "${schema}".probe VALUES (1)`);
    proxy.cutOnce({ match: "COMMIT", when: "after" });
    await expect(client.query("COMMIT")).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const check = new pg.Client({ connectionString: POSTGRES_URL });
    await check.connect();
    const { rows } = await check.query(`SELECT count(*)::int AS n FROM "${schema}".probe`);
    await check.end();
    expect(rows[0].n).toBe(1);
  });

  for (const when of ["before", "after"] as const) {
    it(`a put whose connection drops ${when} COMMIT reaches the server is retried and stored exactly once`, async () => {
      const threadId = uniqueThreadId();
      const lease = await saver.acquireLease(threadId, "w1", 60_000);
      const first = await putStep(saver, { threadId, id: nextId(), full: { m: ["a"] }, lease });
      const cutsBefore = proxy.cuts;
      proxy.cutOnce({ match: when === "after" ? "COMMIT" : "INSERT INTO", when });
      const request = stepRequest({
        threadId,
        id: nextId(),
        parent: first,
        append: { m: ["b"] },
        writes: [
          { taskId: "t1", channel: "m", value: 1 },
          { taskId: "t2", channel: "m", value: 2 },
        ],
        lease,
      });
      await saver.put(request);
      expect(proxy.cuts).toBe(cutsBefore + 1);
      const history = await collect(saver.list(threadId));
      expect(history.map((t) => t.checkpoint.id)).toEqual([request.checkpoint.id, first.id]);
      expect(history[0]?.values).toEqual({ m: ["a", "b"] });
      expect(history[0]?.pendingWrites).toEqual(request.writes);
    });
  }

  it("putWrites retried after a lost COMMIT acknowledgement keeps one copy of each write, in order", async () => {
    const threadId = uniqueThreadId();
    const cp = await putStep(saver, { threadId, id: nextId(), full: { x: 0 } });
    await saver.putWrites({ threadId, checkpointId: cp.id }, [{ taskId: "a", channel: "x", value: 1 }]);
    proxy.cutOnce({ match: "COMMIT", when: "after" });
    await saver.putWrites({ threadId, checkpointId: cp.id }, [
      { taskId: "b", channel: "x", value: 2 },
      { taskId: "a", channel: "x", value: 3 },
    ]);
    expect((await saver.get({ threadId }))?.pendingWrites).toEqual([
      { taskId: "a", channel: "x", value: 3 },
      { taskId: "b", channel: "x", value: 2 },
    ]);
  });

  it("reads are retried too, and connections the server killed are replaced", async () => {
    const threadId = uniqueThreadId();
    await putStep(saver, { threadId, id: nextId(), full: { x: 1 } });
    proxy.cutOnce({ match: "SELECT t.ttl_ms", when: "before" });
    expect((await saver.get({ threadId }))?.values).toEqual({ x: 1 });
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1",
      [schema],
    );
    await admin.end();
    expect(rows.length).toBeGreaterThan(0);
    expect((await saver.get({ threadId }))?.values).toEqual({ x: 1 });
  });

  it("sends no named prepared statements (PgBouncer transaction pooling)", async () => {
    const single = new PostgresSaver({ connectionString: POSTGRES_URL, schema, clock, poolConfig: { max: 1 } });
    const threadId = uniqueThreadId();
    const lease = await single.acquireLease(threadId, "w", 60_000);
    const cp = await putStep(single, { threadId, id: nextId(), full: { x: 1 }, lease });
    await single.putWrites({ threadId, checkpointId: cp.id }, [{ taskId: "t", channel: "x", value: 2 }], lease);
    await collect(single.list(threadId, { filter: { source: "input" } }));
    await single.prune(threadId, { keepLast: 1 });
    await single.storedBytes(threadId);
    const { rows } = await single.pool.query("SELECT count(*)::int AS n FROM pg_prepared_statements");
    expect(rows[0].n).toBe(0);
    await single.close();
  });
});
