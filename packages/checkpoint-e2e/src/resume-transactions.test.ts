import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckpointSaver, CommitRequest } from "@trellis/checkpoint";
import { collect } from "@trellis/checkpoint/testing";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { Command } from "@trellis/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ticketGraph as ticketOf } from "./ticket-graph.js";

// Issue 25 item 2: a start → interrupt → resume on SQLite, counted in saver calls — each one SQLite
// transaction — with the folds (`acquireLeaseAndGet`, `commit`) and without them (a saver that lacks them).

const dir = mkdtempSync(join(tmpdir(), "trellis-resume-tx-"));
let files = 0;
const open: SqliteSaver[] = [];
afterEach(async () => {
  for (const saver of open.splice(0)) await saver.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const METHODS = ["get", "put", "putWrites", "acquireLease", "releaseLease", "acquireLeaseAndGet", "commit"] as const;
type Calls = Record<(typeof METHODS)[number], number>;

function sqlite(): SqliteSaver {
  const saver = new SqliteSaver({ filename: join(dir, `resume-${++files}.db`), synchronous: "NORMAL" });
  open.push(saver);
  return saver;
}

/** The real saver with its calls counted; `folds: false` hides the optional methods, as an older saver lacks them. */
function counted(saver: SqliteSaver, options: { folds: boolean; failCommit?: (r: CommitRequest) => boolean }) {
  const calls = Object.fromEntries(METHODS.map((m) => [m, 0])) as Calls;
  const wrapped = new Proxy(saver, {
    get(target, key) {
      if (!options.folds && (key === "acquireLeaseAndGet" || key === "commit")) return undefined;
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if ((METHODS as readonly unknown[]).includes(key)) calls[key as keyof Calls]++;
        if (key === "commit" && options.failCommit?.(args[0] as CommitRequest)) {
          return Promise.reject(new Error("injected: the process died before this commit"));
        }
        return value.apply(target, args);
      };
    },
  }) as CheckpointSaver;
  return { saver: wrapped, calls };
}

let asked = 0;
const ticketGraph = (saver: CheckpointSaver) => ticketOf(saver, { onAsk: () => asked++ });

const none = (): Calls => Object.fromEntries(METHODS.map((m) => [m, 0])) as Calls;

/** Whether another writer could take the thread now: the run gave its lease back. */
async function leaseFree(saver: SqliteSaver, threadId: string): Promise<boolean> {
  const lease = await saver.acquireLease(threadId, "someone-else", 1_000).catch(() => undefined);
  if (lease) await saver.releaseLease(lease);
  return lease !== undefined;
}

describe("start → interrupt → resume on SQLite, in transactions", () => {
  it("with the folds: 3 transactions per invoke (lease+load, puts, the last write with the release)", async () => {
    const real = sqlite();
    const { saver, calls } = counted(real, { folds: true });
    const graph = ticketGraph(saver);
    const paused = await graph.invoke({ question: "q" }, { threadId: "t" });
    expect(paused.__interrupt__).toHaveLength(1);
    // the lease and the load; the input checkpoint; the interrupt with the lease's release
    expect(calls).toEqual({ ...none(), acquireLeaseAndGet: 1, put: 1, commit: 1 });
    expect(await leaseFree(real, "t")).toBe(true);
    expect((await ticketGraph(real).getState({ threadId: "t" })).interrupts).toHaveLength(1); // not counted

    const done = await graph.invoke(new Command({ resume: "a" }), { threadId: "t" });
    expect(done).toEqual({ question: "q", answer: "a", done: true });
    // the lease and the load; after `ask`, with the resume value; after `finish`, with the release
    expect(calls).toEqual({ ...none(), acquireLeaseAndGet: 2, put: 1, commit: 3 });
    expect(await leaseFree(real, "t")).toBe(true);
    await expectHistory(real);
  });

  it("without them (a saver that lacks the optional methods): today's separate calls, the same thread", async () => {
    const real = sqlite();
    const { saver, calls } = counted(real, { folds: false });
    const graph = ticketGraph(saver);
    await graph.invoke({ question: "q" }, { threadId: "t" });
    expect(calls).toEqual({ ...none(), acquireLease: 1, get: 1, put: 1, putWrites: 1, releaseLease: 1 });
    expect(await leaseFree(real, "t")).toBe(true);
    const done = await graph.invoke(new Command({ resume: "a" }), { threadId: "t" });
    expect(done).toEqual({ question: "q", answer: "a", done: true });
    expect(calls).toEqual({ ...none(), acquireLease: 2, get: 2, put: 3, putWrites: 2, releaseLease: 2 });
    expect(await leaseFree(real, "t")).toBe(true);
    await expectHistory(real);
  });

  it("a resume whose next commit never lands leaves the thread paused and unanswered; resending it completes the run", async () => {
    const real = sqlite();
    let dying = true;
    const { saver } = counted(real, {
      folds: true,
      // the commit that carries the resume value (writes against the paused checkpoint, and a put)
      failCommit: (r) => dying && r.writes !== undefined && r.put !== undefined,
    });
    const graph = ticketGraph(saver);
    await graph.invoke({ question: "q" }, { threadId: "t" });
    const pausedAt = (await graph.getState({ threadId: "t" })).checkpointId;
    const before = asked;
    await expect(graph.invoke(new Command({ resume: "a" }), { threadId: "t" })).rejects.toThrow(/injected/);
    expect(asked).toBe(before + 1); // `ask` ran with the answer, but nothing it did was stored
    const state = await graph.getState({ threadId: "t" });
    expect(state.checkpointId).toBe(pausedAt);
    expect(state.interrupts).toHaveLength(1); // still asking: the caller's resend is expected
    expect(await leaseFree(real, "t")).toBe(true); // released on its own after the failed commit
    dying = false;
    expect(await graph.invoke(new Command({ resume: "a" }), { threadId: "t" })).toEqual({
      question: "q",
      answer: "a",
      done: true,
    });
    await expectHistory(real);
  });
});

describe("a pause is stored before it is announced", () => {
  it("the interrupt's commit (folded with the lease's release) lands before the stream's __interrupt__ event", async () => {
    const real = sqlite();
    const order: string[] = [];
    // the real saver, with the commit that carries the interrupt slowed down, as a busy disk would
    const slow = new Proxy(real, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key !== "commit" || typeof value !== "function")
          return typeof value === "function" ? value.bind(target) : value;
        return async (request: CommitRequest) => {
          const interrupt = request.writes?.writes.some((w) => w.channel === "__interrupt__") ?? false;
          if (interrupt) await new Promise((r) => setTimeout(r, 50));
          await value.call(target, request);
          if (interrupt) order.push("interrupt stored");
        };
      },
    }) as CheckpointSaver;
    const graph = ticketGraph(slow);
    for await (const update of graph.stream({ question: "q" }, { threadId: "t", streamMode: "updates" })) {
      if ("__interrupt__" in (update as object)) order.push("interrupt announced");
    }
    expect(order).toEqual(["interrupt stored", "interrupt announced"]);
    expect(await leaseFree(real, "t")).toBe(true);
  });
});

/** Input, paused (interrupt and resume value recorded against it), after `ask`, after `finish`. */
async function expectHistory(saver: SqliteSaver): Promise<void> {
  const history = (await collect(saver.list("t"))).reverse();
  expect(history.map((h) => h.checkpoint.next.map((p) => p.node))).toEqual([["ask"], ["finish"], []]);
  const pausedWrites = history[0]?.pendingWrites.map((w) => w.channel);
  expect(pausedWrites).toEqual(["__interrupt__", "__resume__"]);
  expect(history[2]?.values).toEqual({ question: "q", answer: "a", done: true });
}
