/** Crons on the embedded SQLite file, through the official SDK `Client` (the shared cases, auth, a real clock). */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { ManualClock } from "@trellis/checkpoint";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { CronScheduler } from "../crons/cron-scheduler.js";
import { SqliteCronStore } from "../stores/sqlite/sqlite-cron-store.js";
import { at, type CronBackend, cronCases, cronServer, moveTo } from "./cron-cases.js";
import { eventually, startTestServer } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-crons-"));
const file = join(dir, "trellis.sqlite");

const sqlite: CronBackend = {
  label: "SQLite",
  saver: { kind: "sqlite", path: file },
  async secondScheduler(server, clock) {
    // another connection to the same file: the claim must hold across connections, not only within one
    const db = new BetterSqlite3(file, { timeout: 5_000 });
    const scheduler = new CronScheduler(
      {
        crons: new SqliteCronStore(db),
        runs: server.runs,
        store: server.store,
        saver: server.saver,
        manager: server.manager,
      },
      { clock, pollMs: 1e12 },
    );
    return {
      scheduler,
      async close() {
        await scheduler.stop();
        db.close();
      },
    };
  },
  async dispose() {
    rmSync(dir, { recursive: true, force: true });
  },
};

cronCases(sqlite);

describe("crons with auth on", () => {
  it("a cron belongs to its creator: others get 404 and see none; its runs are its creator's", async () => {
    const clock = new ManualClock(at("10:00:30"));
    const authDir = mkdtempSync(join(tmpdir(), "trellis-crons-auth-"));
    const { server, url } = await cronServer(
      { ...sqlite, saver: { kind: "sqlite", path: join(authDir, "trellis.sqlite") } },
      clock,
      {
        auth: {
          enabled: true,
          credentials: [
            { user: "ana", apiKey: "key-ana" },
            { user: "bo", apiKey: "key-bo" },
          ],
        },
      },
    );
    const ana = new Client({ apiUrl: url, apiKey: "key-ana" });
    const bo = new Client({ apiUrl: url, apiKey: "key-bo" });
    try {
      const anaThread = await ana.threads.create({ graphId: "slow" });
      await expect(bo.crons.createForThread(anaThread.thread_id, "slow", { schedule: "* * * * *" })).rejects.toThrow(
        /404/,
      );
      const cron = await ana.crons.create("slow", {
        schedule: "* * * * *",
        input: { delayMs: 0 },
        onRunCompleted: "keep",
      });
      expect(cron.user_id).toBe("ana");
      expect(await bo.crons.search()).toEqual([]);
      expect(await bo.crons.count()).toBe(0);
      await expect(bo.crons.update(cron.cron_id, { schedule: "0 * * * *" })).rejects.toThrow(/404/);
      await expect(bo.crons.delete(cron.cron_id)).rejects.toThrow(/404/);
      expect((await ana.crons.search()).map((c) => c.cron_id)).toEqual([cron.cron_id]);

      await moveTo(clock, at("10:01:00"));
      const [runId] = await server.crons.tick();
      const threads = await eventually(async () => {
        const found = await ana.threads.search({ metadata: { cron_id: cron.cron_id } });
        return found.length === 1 && found;
      });
      const threadId = threads[0]?.thread_id as string;
      await ana.runs.join(threadId, runId as string);
      expect((await ana.threads.getState<{ log: string[] }>(threadId)).values.log).toEqual(["a", "b", "c"]);
      await expect(bo.threads.get(threadId)).rejects.toThrow(/404/);
      await ana.crons.delete(cron.cron_id);
    } finally {
      await server.close();
      rmSync(authDir, { recursive: true, force: true });
    }
  });
});

describe("crons on the real clock", () => {
  it("the server's own loop starts a due cron's run", async () => {
    // a "* * * * *" schedule cannot be waited for in a test: the cron's next tick is moved to now
    const t = await startTestServer({}, { crons: { pollMs: 50 } });
    const client = new Client({ apiUrl: t.url, apiKey: null });
    try {
      const info = (await (await fetch(`${t.url}/info`)).json()) as { flags: { crons: boolean } };
      expect(info.flags.crons).toBe(true);
      const thread = await client.threads.create({ graphId: "slow" });
      const cron = await client.crons.createForThread(thread.thread_id, "slow", {
        schedule: "* * * * *",
        input: { delayMs: 0 },
      });
      const next = Date.parse(cron.next_run_date as string);
      expect(next).toBeGreaterThan(Date.now() - 1_000);
      expect(next - Date.now()).toBeLessThanOrEqual(60_000);
      expect(next % 60_000).toBe(0);
      expect(t.server.crons.running).toBe(true);
      // (if the real minute turned meanwhile, the loop may take that tick first: one run either way)
      await t.server.crons.crons.update(cron.cron_id, { nextRunMs: Date.now() - 1, updatedAt: cron.updated_at });
      const runs = await eventually(async () => {
        const list = await client.runs.list(thread.thread_id);
        return list.length === 1 && list;
      });
      await client.runs.join(thread.thread_id, runs[0]?.run_id as string);
      const [after] = await client.crons.search({ threadId: thread.thread_id });
      expect(Date.parse(after?.next_run_date as string)).toBeGreaterThan(Date.now() - 60_000);
      await client.crons.delete(cron.cron_id);
    } finally {
      await t.close();
    }
  });
});
