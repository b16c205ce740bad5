import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CheckpointSaver, type CommitRequest, type PutRequest, systemClock } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { Command, END, START, StateGraph } from "@trellis/core";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ticketGraph, ticketState } from "./ticket-graph.js";

// A run's input checkpoint holds nothing a node computed, so on a `synchronous=FULL` SqliteSaver it
// commits without a disk sync (`PutRequest.quick`); the run's next write is a synced commit that carries
// it (WAL keeps commits in order), and a run that stores nothing after its input stores it again,
// synced, before it ends. Observed inside each write transaction: the saver reads its clock there, and
// this clock notes the connection's `synchronous` level (1 NORMAL, 2 FULL) at that moment.

const dir = mkdtempSync(join(tmpdir(), "trellis-input-quick-"));
let files = 0;
const open: SqliteSaver[] = [];
afterEach(async () => {
  for (const saver of open.splice(0)) await saver.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WRITES = new Set(["put", "putWrites", "commit", "acquireLeaseAndGet", "acquireLease", "releaseLease"]);

interface Commit {
  call: string;
  level: number;
  checkpointId?: string | undefined;
}

/** What a write call stores, in a word or two: `put quick`, `commit writes+put+release`. */
function describeCall(method: string, request: unknown): Omit<Commit, "level"> {
  if (method === "put") {
    const put = request as PutRequest;
    return { call: put.quick ? "put quick" : "put", checkpointId: put.checkpoint.id };
  }
  if (method === "commit") {
    const c = request as CommitRequest;
    const parts = [c.writes && "writes", c.put && (c.put.quick ? "put quick" : "put"), c.release && "release"];
    return { call: `commit ${parts.filter(Boolean).join("+")}`, checkpointId: c.put?.checkpoint.id };
  }
  return { call: method };
}

/** A FULL SqliteSaver whose write calls are logged with the `synchronous` level their transaction ran at. */
function observedSaver() {
  const commits: Commit[] = [];
  let pending: Omit<Commit, "level"> | undefined;
  const real: SqliteSaver = new SqliteSaver({
    filename: join(dir, `quick-${++files}.db`),
    clock: {
      ...systemClock,
      now: () => {
        // the first clock read of a write call happens inside its transaction
        if (pending) {
          commits.push({ ...pending, level: Number(real.database.pragma("synchronous", { simple: true })) });
          pending = undefined;
        }
        return Date.now();
      },
    },
  });
  open.push(real);
  const saver = new Proxy(real, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (typeof key === "string" && WRITES.has(key)) pending = describeCall(key, args[0]);
        return value.apply(target, args);
      };
    },
  }) as CheckpointSaver;
  return { saver, real, commits };
}

describe("a run's input checkpoint on a FULL SqliteSaver", () => {
  it("commits without a disk sync; every other checkpoint and write of the run is synced", async () => {
    const { saver, real, commits } = observedSaver();
    expect(real.database.pragma("synchronous", { simple: true })).toBe(2);
    const graph = ticketGraph(saver);
    const paused = await graph.invoke({ question: "q" }, { threadId: "t" });
    expect(paused.__interrupt__).toHaveLength(1);
    expect(commits.map(({ call, level }) => [call, level])).toEqual([
      ["acquireLeaseAndGet", 1], // a lease write, as before
      ["put quick", 1], // the input: no node has run
      ["commit writes+release", 2], // the interrupt: synced before the caller hears of the pause
    ]);
    commits.length = 0;
    const done = await graph.invoke(new Command({ resume: "a" }), { threadId: "t" });
    expect(done).toEqual({ question: "q", answer: "a", done: true });
    expect(commits.map(({ call, level }) => [call, level])).toEqual([
      ["acquireLeaseAndGet", 1],
      ["commit writes+put", 2], // the answer with `ask`'s checkpoint: synced before `finish` runs
      ["commit put+release", 2],
    ]);
    expect(real.database.pragma("synchronous", { simple: true })).toBe(2);
  });

  it("is stored before the first node runs: another connection reads it from inside that node", async () => {
    const { saver } = observedSaver();
    const peer = new SqliteSaver({ filename: join(dir, `quick-${files}.db`) });
    open.push(peer);
    const seen: unknown[] = [];
    const graph = new StateGraph(ticketState)
      .addNode("ask", async (s) => {
        seen.push((await peer.get({ threadId: "t" }))?.values.question);
        return { answer: `re: ${s.question}` };
      })
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: saver });
    await graph.invoke({ question: "visible?" }, { threadId: "t" });
    expect(seen).toEqual(["visible?"]);
  });

  it("a run that stores nothing after its input (a breakpoint before the first node) stores it again, synced", async () => {
    const { saver, commits } = observedSaver();
    const graph = ticketGraph(saver, { interruptBefore: ["ask"] });
    await graph.invoke({ question: "q" }, { threadId: "t" });
    const [, quick, last] = commits;
    expect(commits).toHaveLength(3);
    expect([quick?.call, quick?.level]).toEqual(["put quick", 1]);
    // the run's last transaction: the same checkpoint again, synced, with the lease given back
    expect([last?.call, last?.level]).toEqual(["commit put+release", 2]);
    expect(last?.checkpointId).toBe(quick?.checkpointId);
    const state = await graph.getState({ threadId: "t" });
    expect(state.next).toEqual(["ask"]);
    expect(state.values.question).toBe("q");
  });

  it("a run whose input routes straight to END stores it again, synced, before it returns", async () => {
    const { saver, commits } = observedSaver();
    const graph = new StateGraph(ticketState)
      .addNode("ask", () => ({ answer: "never" }))
      .addConditionalEdges(START, (s) => (s.question === "" ? "ask" : END))
      .addEdge("ask", END)
      .compile({ checkpointer: saver });
    expect(await graph.invoke({ question: "nothing to do" }, { threadId: "t" })).toEqual({
      question: "nothing to do",
      answer: "",
      done: false,
    });
    expect(commits.map(({ call, level }) => [call, level])).toEqual([
      ["acquireLeaseAndGet", 1],
      ["put quick", 1],
      ["commit put+release", 2],
    ]);
  });

  it("a reviewer's edit sent with the answer (Command update + resume) is quick; the step after it is synced", async () => {
    const { saver, commits } = observedSaver();
    const graph = ticketGraph(saver);
    await graph.invoke({ question: "q" }, { threadId: "t" });
    commits.length = 0;
    const done = await graph.invoke(new Command({ update: { question: "q, edited" }, resume: "a" }), {
      threadId: "t",
    });
    expect(done).toEqual({ question: "q, edited", answer: "a", done: true });
    const levels = commits.map(({ call, level }) => [call, level]);
    expect(levels[1]).toEqual(["put quick", 1]);
    // every write after the edit's checkpoint is synced, and the edit reaches the disk with the first
    expect(levels.slice(2).every(([, level]) => level === 2)).toBe(true);
    expect(levels.length).toBeGreaterThan(2);
  });
});
