import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@trellis/checkpoint";
import { collect, putStep, stepRequest, uniqueThreadId } from "@trellis/checkpoint/testing";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToEnd } from "./fixtures/run-to-end.js";
import { FaultProxy } from "./harness/fault-proxy.js";
import { Ledger } from "./harness/ledger.js";
import { dropSchema, POSTGRES_URL, requirePostgres, runLabel } from "./harness/services.js";

// PostgreSQL is shared with other test runs on this machine, so it is never restarted here: a restart
// is what the client sees through the proxy (every connection reset, new ones refused for a while),
// and server-side kills use pg_terminate_backend on this run's own connections only.
const available = await requirePostgres();
const upstreamPort = Number(new URL(POSTGRES_URL).port || 5432);

describe.skipIf(!available)("PostgresSaver over a connection that breaks", () => {
  const schema = runLabel("conn");
  const dir = mkdtempSync(join(tmpdir(), "trellis-pg-faults-"));
  let proxy: FaultProxy;
  let saver: PostgresSaver;
  const clock = new ManualClock(Date.UTC(2030, 0, 1));
  let ids = 0;
  const nextId = () => `cp-${String(++ids).padStart(6, "0")}`;

  beforeAll(async () => {
    proxy = await FaultProxy.start(upstreamPort);
    saver = new PostgresSaver({
      connectionString: proxy.url(POSTGRES_URL),
      schema,
      clock,
      poolConfig: { max: 2, application_name: schema },
    });
    await saver.setup();
  });

  afterAll(async () => {
    try {
      await saver?.close();
      await proxy?.close();
    } finally {
      // Whatever failed above, the schema of this run goes.
      await dropSchema(schema);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the proxy really produces a commit the client never hears about", async () => {
    const client = new pg.Client({ connectionString: proxy.url(POSTGRES_URL) });
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
    expect(await terminateBackends(schema)).toBeGreaterThan(0);
    expect((await saver.get({ threadId }))?.values).toEqual({ x: 1 });
  });

  it("close() right after every connection was reset still resolves", async () => {
    const other = new PostgresSaver({ connectionString: proxy.url(POSTGRES_URL), schema, poolConfig: { max: 2 } });
    await other.get({ threadId: "nobody" });
    proxy.cutAll();
    await expect(other.close()).resolves.toBeUndefined();
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

  it("a graph run whose connections are cut at random moments ends with nothing lost, duplicated or partial", async () => {
    const graphSchema = runLabel("cuts");
    const faulty = new PostgresSaver({
      connectionString: proxy.url(POSTGRES_URL),
      schema: graphSchema,
      poolConfig: { max: 2 },
    });
    const checker = new PostgresSaver({ connectionString: POSTGRES_URL, schema: graphSchema });
    const ledger = Ledger.open(join(dir, "cuts.ledger.db"));
    const random = seeded(7);
    let cuts = 0;
    let stop = false;
    const injector = (async () => {
      // At most 25 cuts, one every 15-60 ms, while the run lasts.
      while (!stop && cuts < 25) {
        await new Promise((resolve) => setTimeout(resolve, 15 + random() * 45));
        if (stop) break;
        cuts += proxy.cutAll();
      }
    })();
    try {
      const out = await runToEnd({ saver: faulty, checker, ledger, threadId: "cut-thread", rounds: 6, workMs: 10 });
      stop = true;
      await injector;
      console.log(
        `[reliability] postgres cuts: ${cuts} connections reset during the run, ${out.attempts} attempt(s) (${out.failures.length} failed), ${out.checkpoints} checkpoints — lost ${out.lost.length}, duplicated ${out.duplicated.length}, re-run ${out.reruns.length}, problems ${out.problems.length}`,
      );
      expect(cuts).toBeGreaterThan(0);
      expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
    } finally {
      stop = true;
      await injector;
      ledger.close();
      await faulty.close();
      await checker.close();
      await dropSchema(graphSchema);
    }
  });

  it("a restart under load (8 threads; connections killed server-side, then all reset and refused for 1.5 s): every thread ends whole", async () => {
    const loadSchema = runLabel("restart");
    const appName = `${loadSchema}_app`;
    const faulty = new PostgresSaver({
      connectionString: proxy.url(POSTGRES_URL),
      schema: loadSchema,
      poolConfig: { max: 4, application_name: appName },
    });
    const checker = new PostgresSaver({ connectionString: POSTGRES_URL, schema: loadSchema });
    await checker.setup();
    const ledgers = Array.from({ length: 8 }, (_, i) => Ledger.open(join(dir, `restart-${i}.ledger.db`)));
    try {
      const runs = ledgers.map((ledger, i) =>
        runToEnd({ saver: faulty, checker, ledger, threadId: `load-${i}`, rounds: 6, workMs: 30 }),
      );
      // Under load: every thread is past its first round, none is near its end.
      const until = Date.now() + 20_000;
      while (ledgers.some((l) => l.count("applied", "w1:1") === 0) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const terminated = await terminateBackends(appName);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await proxy.restart(1_500);
      const outs = await Promise.all(runs);
      const failed = outs.reduce((n, o) => n + o.failures.length, 0);
      console.log(
        `[reliability] postgres restart under load: ${terminated} backends terminated, proxy down 1.5 s; 8 threads needed ${outs.map((o) => o.attempts).join("/")} attempts (${failed} failed runs) — lost ${outs.reduce((n, o) => n + o.lost.length, 0)}, duplicated ${outs.reduce((n, o) => n + o.duplicated.length, 0)}, partial or forked ${outs.reduce((n, o) => n + o.problems.length, 0)}`,
      );
      expect(failed).toBeGreaterThan(0); // the outage really broke runs…
      for (const out of outs) {
        // …and yet each thread ended whole.
        expect(out).toMatchObject({ lost: [], duplicated: [], unexpected: [], reruns: [], problems: [] });
      }
    } finally {
      for (const l of ledgers) l.close();
      await faulty.close();
      await checker.close();
      await dropSchema(loadSchema);
    }
  });
});

/** Terminates this run's own server connections (by application_name); returns how many. */
async function terminateBackends(applicationName: string): Promise<number> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1",
      [applicationName],
    );
    return rows.length;
  } finally {
    await admin.end();
  }
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
