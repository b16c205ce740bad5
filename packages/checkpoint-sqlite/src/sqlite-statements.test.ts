import type { Lease, PendingWrite } from "@trellis/checkpoint";
import { stepRequest } from "@trellis/checkpoint/testing";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "./sqlite-saver.js";

/**
 * A database whose prepared statements count their executions (`run`, `get`, `all`; a transaction's
 * BEGIN and COMMIT are not among them): the per-call work of the saver, which a short thread's CPU follows.
 */
function countingDatabase(): { db: BetterSqlite3.Database; executed: () => number } {
  const db = new BetterSqlite3(":memory:");
  let executed = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const statement = prepare(sql);
    for (const method of ["run", "get", "all"] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        executed++;
        return original(...args);
      };
    }
    return statement;
  }) as typeof db.prepare;
  return { db, executed: () => executed };
}

describe("SqliteSaver statements per call", () => {
  it("a start → interrupt → resume's six calls run 24 statements besides BEGIN/COMMIT (29 before)", async () => {
    const { db, executed } = countingDatabase();
    const saver = new SqliteSaver({ database: db, synchronous: "NORMAL" });
    const counts: Record<string, number> = {};
    const counted = async <T>(call: string, fn: () => Promise<T>): Promise<T> => {
      const before = executed();
      const out = await fn();
      counts[call] = executed() - before;
      return out;
    };
    const write = (channel: string, value: unknown): PendingWrite[] => [{ taskId: "ask-task", channel, value }];
    const threadId = "t";
    const first: Lease = (
      await counted("lease + load (new)", () => saver.acquireLeaseAndGet({ threadId }, "w", 30_000))
    ).lease;
    const input = stepRequest({ threadId, id: "0001", full: { question: "q", answer: "", done: false } });
    await counted("put (input)", () => saver.put({ ...input, lease: first }));
    const paused = { threadId, checkpointId: input.checkpoint.id };
    const interrupt = write("__interrupt__", [{ id: "i", value: { question: "q" } }]);
    await counted("commit (interrupt + release)", () =>
      saver.commit({ writes: { ref: paused, writes: interrupt }, lease: first, release: true }),
    );
    const loaded = await counted("lease + load (paused)", () => saver.acquireLeaseAndGet({ threadId }, "w", 30_000));
    expect(loaded.tuple?.pendingWrites.map((w) => w.channel)).toEqual(["__interrupt__"]);
    const afterAsk = stepRequest({ threadId, id: "0002", parent: input.checkpoint, full: { answer: "a" } });
    await counted("commit (resume + put)", () =>
      saver.commit({ writes: { ref: paused, writes: write("__resume__", "a") }, put: afterAsk, lease: loaded.lease }),
    );
    const last = stepRequest({ threadId, id: "0003", parent: afterAsk.checkpoint, full: { done: true } });
    await counted("commit (last put + release)", () => saver.commit({ put: last, lease: loaded.lease, release: true }));
    // A new thread's row is inserted with its lease (was an insert, then the lease's update); a write
    // reads its place in the order and checks its checkpoint inside its own insert (was two SELECTs more).
    expect(counts).toEqual({
      "lease + load (new)": 3, // was 4
      "put (input)": 5,
      "commit (interrupt + release)": 3, // was 5
      "lease + load (paused)": 5,
      "commit (resume + put)": 4, // was 6
      "commit (last put + release)": 4,
    });
    // and what they stored reads back: the resume write against the paused checkpoint, in order
    const head = await saver.get({ threadId, checkpointId: input.checkpoint.id });
    expect(head?.pendingWrites.map((w) => [w.channel, w.value])).toEqual([
      ["__interrupt__", [{ id: "i", value: { question: "q" } }]],
      ["__resume__", "a"],
    ]);
    await saver.close();
    db.close();
  });
});
