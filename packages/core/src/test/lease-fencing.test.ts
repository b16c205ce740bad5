import { type CheckpointTuple, parseLeaseOwner } from "@trellis/checkpoint";
import { describe, expect, it } from "vitest";
import {
  type CheckpointSaver,
  channel,
  END,
  LeaseError,
  ManualClock,
  MemorySaver,
  START,
  StateGraph,
} from "../index.js";

const TTL = 1_000;

/** The saver with another `renewLease`: a writer whose renewals hang (a stalled process) or fail. */
function withRenew(saver: CheckpointSaver, renewLease: CheckpointSaver["renewLease"]): CheckpointSaver {
  return new Proxy(saver, {
    get(target, key) {
      if (key === "renewLease") return renewLease;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * `first → work → last`. `work` waits for the test's `release()` in the executor whose `hold` is set,
 * and tells the test what its signal saw.
 */
function graphOn(saver: CheckpointSaver, clock: ManualClock, hold?: { reached(): void; gate: Promise<void> }) {
  const seen: { aborted: unknown } = { aborted: undefined };
  const graph = new StateGraph({ log: channel.append<string>() })
    .addNode("first", () => ({ log: ["first"] }))
    .addNode("work", async (_s, ctx) => {
      ctx.signal.addEventListener("abort", () => {
        seen.aborted = ctx.signal.reason;
      });
      if (hold) {
        hold.reached();
        await hold.gate;
      }
      return { log: [hold ? "work:stale" : "work"] };
    })
    .addNode("last", () => ({ log: ["last"] }))
    .addEdge(START, "first")
    .addEdge("first", "work")
    .addEdge("work", "last")
    .addEdge("last", END)
    .compile({ checkpointer: saver, clock, leaseTtlMs: TTL });
  return { graph, seen };
}

function held() {
  let reached!: () => void;
  let release!: () => void;
  const atWork = new Promise<void>((resolve) => (reached = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { hold: { reached, gate }, atWork, release };
}

async function history(saver: CheckpointSaver, threadId: string): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of saver.list(threadId)) out.push(t);
  return out;
}

/** One head, and no checkpoint with two children: the chain did not fork. */
function expectLinear(chain: CheckpointTuple[]): void {
  const parents = chain.map((t) => t.checkpoint.parentId);
  expect(new Set(parents).size).toBe(parents.length);
  for (let i = 0; i + 1 < chain.length; i++) expect(chain[i]?.checkpoint.parentId).toBe(chain[i + 1]?.checkpoint.id);
}

describe("every execution is a lease holder of its own", () => {
  for (const [label, configOf] of [
    ["the same run id", (_attempt: number) => ({ runId: "run-1" })],
    [
      "the same run id and explicit attempt owners",
      (attempt: number) => ({ runId: "run-1", leaseOwner: `run-1:attempt-${attempt}` }),
    ],
  ] as const) {
    it(`two executors with ${label}: the second waits for the lease, then fences the first, whose writes are refused`, async () => {
      const clock = new ManualClock(0);
      const saver = new MemorySaver({ clock });
      const threadId = "t";
      // Executor 1 stalls inside `work` (its renewals hang, as in a SIGSTOPped process).
      const stalled = withRenew(saver, () => new Promise(() => {}));
      const { hold, atWork, release } = held();
      const one = graphOn(stalled, clock, hold).graph;
      const two = graphOn(saver, clock).graph;
      const first = one.invoke({ log: [] }, { threadId, ...configOf(1) }).catch((e) => e);
      await atWork;

      // Its lease is live: the same run id no longer shares it.
      const busy = await two.invoke(null, { threadId, ...configOf(2) }).catch((e) => e);
      expect(busy).toBeInstanceOf(LeaseError);
      expect(busy.code).toBe("THREAD_BUSY");

      // Once it expired, executor 2 takes the thread with a higher epoch and finishes the run.
      await clock.advance(TTL);
      expect(await two.invoke(null, { threadId, ...configOf(2) })).toEqual({ log: ["first", "work", "last"] });
      const before = await history(saver, threadId);

      // Executor 1 wakes: its next write is refused, nothing of it lands.
      release();
      const lost = await first;
      expect(lost).toBeInstanceOf(LeaseError);
      expect(lost.code).toBe("LEASE_LOST");
      const after = await history(saver, threadId);
      expect(after.map((t) => [t.checkpoint.id, t.values, t.pendingWrites])).toEqual(
        before.map((t) => [t.checkpoint.id, t.values, t.pendingWrites]),
      );
      expectLinear(after);
      expect(after[0]?.values.log).toEqual(["first", "work", "last"]);
    });
  }

  it("the lease owner is the explicit leaseOwner, or the run id and a nonce, and names this process", async () => {
    const clock = new ManualClock(0);
    const owners: string[] = [];
    const base = new MemorySaver({ clock });
    const saver = new Proxy(base, {
      get(target, key) {
        if (key === "acquireLease") {
          return (threadId: string, owner: string, ttl: number) => {
            owners.push(owner);
            return target.acquireLease(threadId, owner, ttl);
          };
        }
        if (key === "acquireLeaseAndGet") {
          return (ref: { threadId: string }, owner: string, ttl: number) => {
            owners.push(owner);
            return target.acquireLeaseAndGet(ref, owner, ttl);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { graph } = graphOn(saver, clock);
    await graph.invoke({ log: [] }, { threadId: "a", runId: "r" });
    await graph.invoke({ log: [] }, { threadId: "b", runId: "r" });
    await graph.invoke({ log: [] }, { threadId: "c", leaseOwner: "r:attempt-3" });
    await graph.updateState({ threadId: "c", runId: "r" }, { log: ["x"] });
    const parsed = owners.map(parseLeaseOwner);
    expect(parsed[0]?.name).toMatch(/^r\.[0-9a-f]{8}[0-9a-z]+$/);
    expect(parsed[1]?.name).toMatch(/^r\.[0-9a-f]{8}[0-9a-z]+$/);
    expect(parsed[0]?.name).not.toBe(parsed[1]?.name);
    expect(parsed[2]?.name).toBe("r:attempt-3");
    expect(parsed[3]?.name).toMatch(/^r\.[0-9a-f]{8}[0-9a-z]+$/);
    for (const p of parsed) expect(p.holder?.pid).toBe(process.pid);
    await expect(graph.invoke({ log: [] }, { threadId: "d", leaseOwner: "" })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
  });
});

describe("an execution that ended without releasing its lease", () => {
  it("frees the thread at once for the next execution in this process (its release failed: the store was down)", async () => {
    const clock = new ManualClock(0);
    const base = new MemorySaver({ clock });
    let storeDown = true;
    const saver = new Proxy(base, {
      get(target, key) {
        if (key === "releaseLease") {
          return (lease: Parameters<MemorySaver["releaseLease"]>[0]) =>
            storeDown ? Promise.reject(new Error("connection refused")) : target.releaseLease(lease);
        }
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const { graph } = graphOn(saver, clock);
    await graph.invoke({ log: [] }, { threadId: "t", runId: "r" });
    // Its lease is still stored and live for TTL; another process would wait for it, this one need not.
    storeDown = false;
    expect(await graph.invoke({ log: ["again"] }, { threadId: "t", runId: "r" })).toMatchObject({
      log: ["first", "work", "last", "again", "first", "work", "last"],
    });
  });
});

describe("a run whose lease is lost stops at once", () => {
  it("a renewal refused with LEASE_LOST aborts the run's signal with LEASE_LOST, before its next write", async () => {
    const clock = new ManualClock(0);
    // The second writer finds the first one's holder dead (as on a SIGKILL; here the judge is wrong).
    let judgeDead = false;
    const saver = new MemorySaver({ clock, isHolderDead: () => judgeDead });
    const { hold, atWork, release } = held();
    const { graph, seen } = graphOn(saver, clock, hold);
    const run = graph.invoke({ log: [] }, { threadId: "t" }).catch((e) => e);
    await atWork;
    judgeDead = true;
    const takeover = await saver.acquireLease("t", "taker", TTL);
    expect(takeover.epoch).toBe(2);
    const head = await saver.get({ threadId: "t" });

    await clock.advance(TTL / 3); // the run's renewal: refused
    const error = await run;
    expect(error).toBeInstanceOf(LeaseError);
    expect(error.code).toBe("LEASE_LOST");
    expect(seen.aborted).toBe(error);
    release();
    await clock.advance(10);
    // Nothing the run did after the takeover landed.
    const after = await history(saver, "t");
    expect(after[0]?.checkpoint.id).toBe(head?.checkpoint.id);
    expect(after[0]?.pendingWrites).toEqual(head?.pendingWrites);
    expectLinear(after);
  });

  it("renewals failing until the lease expired stop the run with LEASE_LOST; one passing failure does not", async () => {
    const clock = new ManualClock(0);
    const base = new MemorySaver({ clock });
    let failures = 1;
    const flaky = withRenew(base, (lease, ttl) =>
      failures-- > 0 ? Promise.reject(new Error("connection reset")) : base.renewLease(lease, ttl),
    );
    const passing = held();
    const ok = graphOn(flaky, clock, passing.hold).graph;
    const run = ok.invoke({ log: [] }, { threadId: "ok" });
    await passing.atWork;
    await clock.advance(TTL * 3); // one failure, retried soon, then renewed every third of the TTL
    passing.release();
    expect(await run).toEqual({ log: ["first", "work:stale", "last"] });

    const down = withRenew(base, () => Promise.reject(new Error("connection refused")));
    const failing = held();
    const { graph, seen } = graphOn(down, clock, failing.hold);
    const doomed = graph.invoke({ log: [] }, { threadId: "down" }).catch((e) => e);
    await failing.atWork;
    await clock.advance(TTL * 1.2);
    const error = await doomed;
    expect(error).toBeInstanceOf(LeaseError);
    expect(error.code).toBe("LEASE_LOST");
    expect(error.message).toContain("connection refused");
    expect(seen.aborted).toBe(error);
    failing.release();
  });
});
