import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./fixtures/test-server.js";
import { Ledger, type LedgerEntry } from "./harness/ledger.js";

const N = 50;
const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);
const dir = mkdtempSync(join(tmpdir(), "trellis-multitask-"));
const ledgerFile = join(dir, "ledger.db");
// The served graphs run in this process and record every node start and end here.
process.env.TRELLIS_RELIABILITY_LEDGER = ledgerFile;

let t: TestServer;
let ledger: Ledger;
beforeAll(async () => {
  ledger = Ledger.open(ledgerFile);
  t = await startTestServer({ queue: { kind: "embedded", concurrency: 4 } });
});
afterAll(async () => {
  await t.close();
  ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  run_id: string;
  status: string;
}

/**
 * Fires N run requests at one thread — all at once, or the i-th after i × `spreadMs` so that each
 * arrives while an earlier run is executing — and waits until every accepted run has ended.
 */
async function burst(strategy: string, delayMs: number, spreadMs = 0) {
  const threadId = ((await t.call("POST", "/threads", { body: {} })).json as { thread_id: string }).thread_id;
  const answers = await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      if (spreadMs > 0) await new Promise((resolve) => setTimeout(resolve, i * spreadMs));
      return t.call("POST", `/threads/${threadId}/runs`, {
        body: { assistant_id: "slow", input: { delayMs }, multitask_strategy: strategy },
      });
    }),
  );
  const until = Date.now() + 60_000;
  let runs: Run[] = [];
  for (;;) {
    runs = (await t.call("GET", `/threads/${threadId}/runs?limit=1000`)).json as Run[];
    if (runs.every((r) => TERMINAL.has(r.status)) || Date.now() > until) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const state = (await t.call("GET", `/threads/${threadId}/state`)).json as { values: { log: string[] } };
  const ids = new Set(runs.map((r) => r.run_id));
  const entries = ledger.entries().filter((e) => ids.has(e.detail ?? ""));
  const counts = (s: string) => runs.filter((r) => r.status === s).length;
  const executed = new Set(entries.map((e) => e.detail)).size;
  console.log(
    `[reliability] ${N} runs on one thread${spreadMs ? `, one every ${spreadMs} ms` : " at once"}, multitask_strategy ${strategy}: answers ${JSON.stringify(tally(answers.map((a) => a.status)))}, runs ${JSON.stringify(tally(runs.map((r) => r.status)))}, ${executed} runs executed ${entries.filter((e) => e.kind === "start").length} nodes, final log ${state.values.log.length} entries; overlapping runs: ${overlaps(entries).length}`,
  );
  return { threadId, answers, runs, log: state.values.log, entries, counts, executed };
}

function tally(items: readonly (string | number)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const i of items) out[String(i)] = (out[String(i)] ?? 0) + 1;
  return out;
}

/** Runs whose node executions interleave with another run's (the ledger's order is execution order). */
function overlaps(entries: readonly LedgerEntry[]): string[] {
  const span = new Map<string, [number, number]>();
  entries.forEach((e, i) => {
    const run = e.detail as string;
    const s = span.get(run);
    span.set(run, s ? [s[0], i] : [i, i]);
  });
  const sorted = [...span].sort((a, b) => a[1][0] - b[1][0]);
  const out: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    if ((sorted[i]?.[1][0] ?? 0) < (sorted[i - 1]?.[1][1] ?? 0)) out.push(sorted[i]?.[0] as string);
  }
  return out;
}

describe(`${N} concurrent runs on one thread behave as docs/server.md says`, () => {
  it("reject: one run is accepted, the others get 409 CONFLICT and store nothing", async () => {
    const r = await burst("reject", 150);
    const accepted = r.answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(1);
    expect(r.answers.filter((a) => a.status === 409)).toHaveLength(N - 1);
    for (const a of r.answers.filter((x) => x.status === 409))
      expect((a.json as { error: string }).error).toBe("CONFLICT");
    expect(r.runs).toHaveLength(1);
    expect(r.runs[0]?.status).toBe("success");
    const id = r.runs[0]?.run_id;
    expect(r.log).toEqual([`${id}:a`, `${id}:b`, `${id}:c`]);
  });

  it("enqueue: every run is accepted and runs to the end, one after the other, in order", async () => {
    const r = await burst("enqueue", 5);
    expect(r.answers.every((a) => a.status === 200)).toBe(true);
    expect(r.counts("success")).toBe(N);
    expect(overlaps(r.entries)).toEqual([]);
    const order = [...r.runs].reverse().map((x) => x.run_id); // the list is newest first
    expect(r.log).toEqual(order.flatMap((id) => [`${id}:a`, `${id}:b`, `${id}:c`]));
  });

  for (const spreadMs of [0, 30]) {
    it(`interrupt${spreadMs ? ", runs arriving while others execute" : ", all at once"}: each new run drains the running one (its finished steps kept) and drops the queued; the last one finishes`, async () => {
      const r = await burst("interrupt", 40, spreadMs);
      expect(r.answers.every((a) => a.status === 200)).toBe(true);
      const [newest, ...older] = r.runs;
      expect(newest?.status).toBe("success");
      expect(older.every((x) => x.status === "interrupted")).toBe(true);
      expect(overlaps(r.entries)).toEqual([]);
      if (spreadMs) expect(r.executed).toBeGreaterThan(N / 4); // runs really were drained mid-way
      const id = newest?.run_id;
      expect(r.log.slice(-3)).toEqual([`${id}:a`, `${id}:b`, `${id}:c`]);
      // Whatever a drained run had finished is kept, once.
      expect(new Set(r.log).size).toBe(r.log.length);
      const finished = r.entries.filter((e) => e.kind === "end").map((e) => `${e.detail}:${e.token}`);
      expect([...r.log].sort()).toEqual([...finished].sort());
    });
  }

  for (const spreadMs of [0, 30]) {
    it(`rollback${spreadMs ? ", runs arriving while others execute" : ", all at once"}: each new run cancels the running one and undoes its progress; the thread holds the last run's work only`, async () => {
      const r = await burst("rollback", 40, spreadMs);
      expect(r.answers.every((a) => a.status === 200)).toBe(true);
      const [newest, ...older] = r.runs;
      expect(newest?.status).toBe("success");
      expect(older.every((x) => x.status === "interrupted")).toBe(true);
      expect(overlaps(r.entries)).toEqual([]);
      if (spreadMs) expect(r.executed).toBeGreaterThan(N / 4); // runs really were rolled back mid-way
      const id = newest?.run_id;
      expect(r.log).toEqual([`${id}:a`, `${id}:b`, `${id}:c`]);
    });
  }
});
