/**
 * A failed attempt never holds its thread (issue 33, finding 10). A run's connection is cut at a chosen
 * moment through the fault proxy, on PostgreSQL (the saver's retries on, the database down for a second
 * right after the cut, so they run out) and on Redis (a client that neither resends nor queues, so the
 * cut reaches the caller):
 * - the acquire's commit lands but its answer is cut off: the attempt fails with its lease stored, and
 *   this process's next run of the thread starts at once (before: `THREAD_BUSY` until the lease expired);
 * - the run's last write and its release fail while the service is down: once it answers again the
 *   lease is given back in the background, so another process (which cannot judge this one's
 *   executions) gets the thread too before the lease expires.
 * The savers' clock never moves, so no lease ever expires here: only the rule can free a thread.
 */
import { type CheckpointSaver, LeaseError, ManualClock } from "@trellis/checkpoint";
import { uniqueThreadId } from "@trellis/checkpoint/testing";
import { PostgresSaver } from "@trellis/checkpoint-postgres";
import { RedisSaver } from "@trellis/checkpoint-redis";
import { channel, END, START, StateGraph } from "@trellis/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type CutRule, FaultProxy } from "./harness/fault-proxy.js";
import {
  deleteKeys,
  dropSchema,
  POSTGRES_URL,
  REDIS_URL,
  requirePostgres,
  requireRedis,
  runLabel,
} from "./harness/services.js";

const available = { postgres: await requirePostgres(), redis: await requireRedis() };

/** `first → work → last`; `work` waits for `gate` when one is given. */
function graphOn(saver: CheckpointSaver, clock: ManualClock, hold?: { reached(): void; gate: Promise<void> }) {
  return new StateGraph({ log: channel.append<string>() })
    .addNode("first", () => ({ log: ["first"] }))
    .addNode("work", async () => {
      if (hold) {
        hold.reached();
        await hold.gate;
      }
      return { log: ["work"] };
    })
    .addNode("last", () => ({ log: ["last"] }))
    .addEdge(START, "first")
    .addEdge("first", "work")
    .addEdge("work", "last")
    .addEdge("last", END)
    .compile({ checkpointer: saver, clock, leaseTtlMs: 60_000 });
}

interface Side {
  /** Opens a saver through the proxy and one straight to the service. */
  open(proxy: FaultProxy, clock: ManualClock): { faulty: CheckpointSaver; direct: CheckpointSaver };
  /** The cut right after the lease's write of run `runId` reached the server. */
  cutAcquire(runId: string): CutRule;
  cleanup(): Promise<unknown>;
}

const schema = runLabel("failed_attempt");
const prefix = `${runLabel("failed_attempt")}:`;
const sides: Record<"postgres" | "redis", Side> = {
  postgres: {
    open(proxy, clock) {
      const options = { schema, clock, poolConfig: { max: 2 } };
      return {
        faulty: new PostgresSaver({ ...options, connectionString: proxy.url(POSTGRES_URL) }),
        // another process, as far as leases go: it cannot judge this one's executions
        direct: new PostgresSaver({ ...options, connectionString: POSTGRES_URL, isHolderDead: () => false }),
      };
    },
    // The acquire is a transaction: its COMMIT reaches the server, the answer does not come back, and
    // the database is down long enough for the saver's retries (25, 50, 100 ms) to fail too.
    cutAcquire: () => ({ match: "COMMIT", when: "after", downMs: 1_000 }),
    cleanup: () => dropSchema(schema),
  },
  redis: {
    open(proxy, clock) {
      const faulty = new RedisSaver({
        url: proxy.url(REDIS_URL),
        keyPrefix: prefix,
        clock,
        // a cut reaches the caller: no resending, no waiting for the reconnection
        redisOptions: { maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false },
      });
      faulty.client.on("error", () => {});
      const direct = new RedisSaver({ url: REDIS_URL, keyPrefix: prefix, clock, isHolderDead: () => false });
      return { faulty, direct };
    },
    // The lease's compare-and-set script carries the new owner, which names the run. The cut waits for
    // Redis's answer, so the script surely ran; a NOSCRIPT answer (the script cache is empty: a new
    // server, or another test's SCRIPT FLUSH) is passed on, and the client's full EVAL is the one cut.
    cutAcquire: (runId) => ({ match: runId, when: "answered", passAnswer: "NOSCRIPT" }),
    cleanup: () => deleteKeys(prefix),
  },
};

/** Waits (polling, bounded) until a read through the proxy answers again. */
async function serviceBack(saver: CheckpointSaver): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await saver.get({ threadId: "probe" }).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const kind of ["postgres", "redis"] as const) {
  describe.skipIf(!available[kind])(`${kind}: a failed attempt never holds its thread`, () => {
    const side = sides[kind];
    const opened: { proxy: FaultProxy; savers: CheckpointSaver[] }[] = [];
    const setUp = async () => {
      const clock = new ManualClock(Date.UTC(2030, 0, 1));
      const proxy = await FaultProxy.start(Number(new URL(kind === "postgres" ? POSTGRES_URL : REDIS_URL).port));
      const { faulty, direct } = side.open(proxy, clock);
      opened.push({ proxy, savers: [faulty, direct] });
      await (direct as PostgresSaver).setup?.();
      await (faulty as PostgresSaver).setup?.();
      return { clock, proxy, faulty, direct };
    };
    afterEach(async () => {
      for (const { proxy, savers } of opened.splice(0)) {
        for (const saver of savers) await saver.close?.();
        await proxy.close();
      }
    });
    afterAll(() => side.cleanup());

    it("an acquire that committed but whose answer was cut off: the next run in this process starts at once", async () => {
      const { clock, proxy, faulty, direct } = await setUp();
      const graph = graphOn(faulty, clock);
      const threadId = uniqueThreadId();
      const runId = `run-${threadId}`;
      const cutsBefore = proxy.cuts;
      proxy.cutOnce(side.cutAcquire(runId));
      const failed = await graph.run({ log: [] }, { threadId, runId });
      expect(failed.status).toBe("error");
      expect(proxy.cuts).toBeGreaterThan(cutsBefore);
      // The failed attempt's lease is stored: another process is refused the thread.
      const busy = await direct.acquireLease(threadId, "elsewhere", 60_000).catch((e) => e);
      expect(busy).toBeInstanceOf(LeaseError);
      expect(busy.code).toBe("THREAD_BUSY");
      // Once the service answers again, this process's next run takes the thread over at once.
      await serviceBack(faulty);
      const next = await graph.run({ log: [] }, { threadId, runId });
      expect(next).toMatchObject({ status: "done", values: { log: ["first", "work", "last"] } });
      // It gave the thread back when it ended.
      expect((await direct.acquireLease(threadId, "elsewhere", 60_000)).epoch).toBe(3);
    });

    it("a release that failed while the service was down is retried once it answers again", async () => {
      const { clock, proxy, faulty, direct } = await setUp();
      let reached!: () => void;
      let open!: () => void;
      const atWork = new Promise<void>((resolve) => (reached = resolve));
      const gate = new Promise<void>((resolve) => (open = resolve));
      const graph = graphOn(faulty, clock, { reached, gate });
      const threadId = uniqueThreadId();
      const running = graph.run({ log: [] }, { threadId, runId: `run-${threadId}` });
      await atWork;
      // The service goes down while the run works: its next write and its release both fail.
      proxy.refuse(true);
      proxy.cutAll();
      open();
      expect((await running).status).toBe("error");
      const busy = await direct.acquireLease(threadId, "elsewhere", 60_000).catch((e) => e);
      expect(busy.code).toBe("THREAD_BUSY");
      proxy.refuse(false);
      // Back up: the ended run gives its lease back by itself (polled; no lease expires meanwhile).
      let taken: unknown;
      for (let i = 0; i < 200 && !taken; i++) {
        taken = await direct.acquireLease(threadId, "elsewhere", 60_000).catch(() => undefined);
        if (!taken) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(taken).toMatchObject({ owner: "elsewhere", epoch: 2 });
    });
  });
}
