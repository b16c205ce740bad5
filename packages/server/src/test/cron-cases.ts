/**
 * The cron cases every storage runs, driven with the official SDK `Client`: create, search, count,
 * update and delete; stateless and thread-bound crons started at their ticks; one run per tick with two
 * schedulers racing; ticks missed while the server was down; end times. A `ManualClock` moves time.
 */
import { Client } from "@langchain/langgraph-sdk";
import { ManualClock } from "@trellis/checkpoint";
import { Client as ClientV1 } from "langgraph-sdk-1";
import { afterAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import type { CronScheduler } from "../crons/cron-scheduler.js";
import { createServer, type TrellisServer } from "../server.js";
import { eventually, PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

/** Where a backend's servers keep their data: the same place for every server until disposed. */
export interface CronBackend {
  label: string;
  saver: NonNullable<TrellisConfig["saver"]>;
  /** A second scheduler on the same storage as `server`, racing its own. */
  secondScheduler(
    server: TrellisServer,
    clock: ManualClock,
  ): Promise<{ scheduler: CronScheduler; close(): Promise<void> }>;
  dispose(): Promise<void>;
}

/** 2026-01-05 (a Monday) at `hh:mm:ss` UTC. */
export const at = (time: string) => Date.parse(`2026-01-05T${time}Z`);

/** Moves a manual clock forward to `ms`. */
export async function moveTo(clock: ManualClock, ms: number): Promise<void> {
  if (ms < clock.now()) throw new Error("the clock only moves forward");
  await clock.advance(ms - clock.now());
}

/** A server on the backend's storage with a manual clock whose look loop never fires by itself. */
export async function cronServer(backend: CronBackend, clock: ManualClock, overrides: Partial<TrellisConfig> = {}) {
  const server = await createServer(
    { graphs: TEST_GRAPHS, saver: backend.saver, baseDir: PACKAGE_DIR, ...overrides },
    // the loop's timer is on the manual clock, far away: the tests take ticks with tick()
    { env: {}, crons: { clock, pollMs: 1e12 } },
  );
  const { url } = await server.listen(0);
  return { server, url, client: new Client({ apiUrl: url, apiKey: null }) };
}

/** Deletes every cron left on the storage, so each case starts with none. */
async function clearCrons(client: Client): Promise<void> {
  for (const cron of await client.crons.search({ limit: 1000 })) await client.crons.delete(cron.cron_id);
}

/** Registers the shared cases for one storage. */
export function cronCases(backend: CronBackend): void {
  afterAll(() => backend.dispose());

  describe(`crons on ${backend.label}`, () => {
    it("create, search, count, update and delete through the SDK", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      try {
        const thread = await client.threads.create({ graphId: "slow" });
        const stateless = await client.crons.create("slow", {
          schedule: "*/5 * * * *",
          input: { delayMs: 0 },
          metadata: { team: "ops" },
        });
        expect(stateless).toMatchObject({
          assistant_id: "slow",
          thread_id: null,
          schedule: "*/5 * * * *",
          next_run_date: "2026-01-05T10:05:00.000Z",
          end_time: null,
          user_id: null,
          on_run_completed: "delete",
          enabled: true,
          metadata: { team: "ops" },
          payload: { input: { delayMs: 0 }, assistant_id: "slow" },
        });
        const bound = await client.crons.createForThread(thread.thread_id, "slow", {
          schedule: "0 9 * * MON-FRI",
          input: { delayMs: 0 },
          multitaskStrategy: "enqueue",
        });
        expect(bound).toMatchObject({ thread_id: thread.thread_id, next_run_date: "2026-01-06T09:00:00.000Z" });
        expect(bound.payload).toMatchObject({ multitask_strategy: "enqueue" });

        const all = await client.crons.search({ assistantId: "slow", sortBy: "created_at", sortOrder: "asc" });
        expect(all.map((c) => c.cron_id).sort()).toEqual([stateless.cron_id, bound.cron_id].sort());
        expect((await client.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([
          bound.cron_id,
        ]);
        const picked = await client.crons.search({ threadId: thread.thread_id, select: ["cron_id", "schedule"] });
        expect(picked).toEqual([{ cron_id: bound.cron_id, schedule: "0 9 * * MON-FRI" }]);
        expect(await client.crons.count({ assistantId: "slow" })).toBe(2);
        expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);

        await moveTo(clock, at("10:20:00"));
        const updated = await client.crons.update(stateless.cron_id, {
          schedule: "30 * * * *",
          input: { delayMs: 1 },
          onRunCompleted: "keep",
        });
        expect(updated).toMatchObject({
          schedule: "30 * * * *",
          next_run_date: "2026-01-05T10:30:00.000Z",
          on_run_completed: "keep",
          payload: { input: { delayMs: 1 } },
        });
        const disabled = await client.crons.update(stateless.cron_id, { enabled: false });
        expect(disabled.enabled).toBe(false);
        expect((await client.crons.search({ enabled: false })).map((c) => c.cron_id)).toEqual([stateless.cron_id]);

        await client.crons.delete(stateless.cron_id);
        expect(await client.crons.count({})).toBe(1);
        await expect(client.crons.delete(stateless.cron_id)).rejects.toThrow(/404/);
        await expect(client.crons.update(stateless.cron_id, { schedule: "* * * * *" })).rejects.toThrow(/404/);
        await client.crons.delete(bound.cron_id);
      } finally {
        await server.close();
      }
    });

    it("SDK 1.x: a schedule in a time zone, an end time at creation, search and count by metadata", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, url } = await cronServer(backend, clock);
      const client = new ClientV1({ apiUrl: url, apiKey: null });
      try {
        for (const cron of await client.crons.search({ limit: 1000 })) await client.crons.delete(cron.cron_id);
        // 09:00 in Amsterdam is 08:00 UTC in January: the next one is tomorrow's
        const zoned = await client.crons.create("slow", {
          schedule: "0 9 * * *",
          timezone: "Europe/Amsterdam",
          endTime: "2026-03-01T00:00:00Z",
          input: { delayMs: 0 },
          metadata: { team: "ops", tier: 1 },
        });
        expect(zoned).toMatchObject({
          timezone: "Europe/Amsterdam",
          next_run_date: "2026-01-06T08:00:00.000Z",
          end_time: "2026-03-01T00:00:00.000Z",
        });
        await client.crons.create("slow", { schedule: "0 9 * * *", metadata: { team: "sales" } });
        expect((await client.crons.search({ metadata: { team: "ops" } })).map((c) => c.cron_id)).toEqual([
          zoned.cron_id,
        ]);
        expect(await client.crons.count({ metadata: { team: "ops", tier: 1 } })).toBe(1);
        expect(await client.crons.count({ metadata: { team: "ops", tier: 2 } })).toBe(0);
        expect(await client.crons.count({})).toBe(2);
        // the same schedule read in New York: 14:00 UTC
        const moved = await client.crons.update(zoned.cron_id, { timezone: "America/New_York" });
        expect(moved.next_run_date).toBe("2026-01-05T14:00:00.000Z");
        await expect(client.crons.create("slow", { schedule: "0 9 * * *", timezone: "Mars/Olympus" })).rejects.toThrow(
          /400/,
        );
        await moveTo(clock, at("14:00:00"));
        const [runId] = await server.crons.tick();
        expect(runId).toBeDefined();
        const [after] = await client.crons.search({ metadata: { team: "ops" } });
        expect(after?.next_run_date).toBe("2026-01-06T14:00:00.000Z");
      } finally {
        await server.close();
      }
    });

    it("refuses a bad schedule, an unknown assistant or thread, and input the graph does not have", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      try {
        for (const schedule of ["every minute", "* * * * * *", "61 * * * *", "0 0 30 2 *", ""]) {
          const error = await client.crons.create("slow", { schedule }).catch((e: Error) => e);
          expect(error).toBeInstanceOf(Error);
          expect(String(error)).toMatch(/400/);
          expect(String(error)).toMatch(/schedule/);
          expect(String(error)).toMatch(/5-field cron expression/);
        }
        await expect(client.crons.create("nope", { schedule: "* * * * *" })).rejects.toThrow(/404/);
        await expect(client.crons.createForThread("no-such-thread", "slow", { schedule: "* * * * *" })).rejects.toThrow(
          /404/,
        );
        await expect(
          client.crons.create("slow", { schedule: "* * * * *", input: { nope: 1 } as Record<string, unknown> }),
        ).rejects.toThrow(/400/);
        const ok = await client.crons.create("slow", { schedule: "* * * * *" });
        await expect(client.crons.update(ok.cron_id, { schedule: "*/0 * * * *" })).rejects.toThrow(/400/);
        await expect(client.crons.update(ok.cron_id, { endTime: "soon" })).rejects.toThrow(/400/);
        expect(await client.crons.count({})).toBe(1);
        await client.crons.delete(ok.cron_id);
      } finally {
        await server.close();
      }
    });

    it("a thread's cron runs on the thread at each tick, once per tick with two schedulers racing", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      const second = await backend.secondScheduler(server, clock);
      try {
        const thread = await client.threads.create({ graphId: "slow" });
        const cron = await client.crons.createForThread(thread.thread_id, "slow", {
          schedule: "*/5 * * * *",
          input: { delayMs: 0 },
          multitaskStrategy: "enqueue",
        });
        await moveTo(clock, at("10:04:59"));
        expect(await server.crons.tick()).toEqual([]); // not due yet
        const started: string[] = [];
        for (const [i, time] of ["10:05:00", "10:10:07", "10:15:59", "10:20:01", "10:25:30"].entries()) {
          await moveTo(clock, at(time));
          const [a, b] = await Promise.all([server.crons.tick(), second.scheduler.tick()]);
          expect([...a, ...b]).toHaveLength(1); // exactly one of the two started the tick's run
          expect(await server.crons.tick()).toEqual([]); // and the tick is gone
          started.push(...a, ...b);
          await client.runs.join(thread.thread_id, started[i] as string);
        }
        const runs = await client.runs.list(thread.thread_id, { limit: 20 });
        expect(runs.map((r) => r.run_id).sort()).toEqual([...started].sort());
        expect(runs.every((r) => r.status === "success" && r.metadata?.cron_id === cron.cron_id)).toBe(true);
        const state = await client.threads.getState<{ log: string[] }>(thread.thread_id);
        expect(state.values.log).toHaveLength(15); // a, b, c per tick
        const [after] = await client.crons.search({ threadId: thread.thread_id });
        expect(after?.next_run_date).toBe("2026-01-05T10:30:00.000Z");
        await client.crons.delete(cron.cron_id);
      } finally {
        await second.close();
        await server.close();
      }
    });

    it("a stateless cron runs on a new thread per tick, deleted after the run unless on_run_completed is keep", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      try {
        const kept = await client.crons.create("slow", {
          schedule: "* * * * *",
          input: { delayMs: 0 },
          onRunCompleted: "keep",
        });
        // no input: each tick runs the graph from the start with the state's defaults
        const dropped = await client.crons.create("slow", { schedule: "* * * * *" });
        await moveTo(clock, at("10:01:00"));
        const first = await server.crons.tick();
        expect(first).toHaveLength(2);
        await moveTo(clock, at("10:02:00"));
        expect(await server.crons.tick()).toHaveLength(2);

        const keptThreads = await eventually(async () => {
          const found = await client.threads.search({ metadata: { cron_id: kept.cron_id } });
          return found.length === 2 && found.every((t) => t.status === "idle") && found;
        }, 15_000);
        for (const t of keptThreads) {
          const state = await client.threads.getState<{ log: string[] }>(t.thread_id);
          expect(state.values.log).toEqual(["a", "b", "c"]);
          const [run] = await client.runs.list(t.thread_id);
          expect(run?.metadata?.cron_id).toBe(kept.cron_id);
        }
        await eventually(
          async () => (await client.threads.search({ metadata: { cron_id: dropped.cron_id } })).length === 0,
          15_000,
        );
      } finally {
        await server.close();
      }
    });

    it("ticks missed while the server was down start one run after the restart; end_time stops a cron", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const first = await cronServer(backend, clock);
      await clearCrons(first.client);
      const thread = await first.client.threads.create({ graphId: "slow" });
      const cron = await first.client.crons.createForThread(thread.thread_id, "slow", {
        schedule: "* * * * *",
        input: { delayMs: 0 },
        multitaskStrategy: "enqueue",
      });
      await first.server.close();

      const later = new ManualClock(at("10:07:30")); // six ticks missed: 10:01 … 10:06, 10:07
      const again = await cronServer(backend, later);
      try {
        const started = await again.server.crons.tick();
        expect(started).toHaveLength(1);
        expect(await again.server.crons.tick()).toEqual([]);
        await again.client.runs.join(thread.thread_id, started[0] as string);
        expect(await again.client.runs.list(thread.thread_id)).toHaveLength(1);
        const [now] = await again.client.crons.search({ threadId: thread.thread_id });
        expect(now?.next_run_date).toBe("2026-01-05T10:08:00.000Z");

        const ending = await again.client.crons.update(cron.cron_id, { endTime: "2026-01-05T10:09:30Z" });
        expect(ending.end_time).toBe("2026-01-05T10:09:30.000Z");
        for (const time of ["10:08:00", "10:09:00"]) {
          await moveTo(later, at(time));
          const [runId] = await again.server.crons.tick();
          await again.client.runs.join(thread.thread_id, runId as string);
        }
        const [ended] = await again.client.crons.search({ threadId: thread.thread_id });
        expect(ended?.next_run_date).toBeNull();
        await moveTo(later, at("10:30:00"));
        expect(await again.server.crons.tick()).toEqual([]);
        expect(await again.client.runs.list(thread.thread_id)).toHaveLength(3);
        await again.client.crons.delete(cron.cron_id);
      } finally {
        await again.server.close();
      }
    });

    it("a cron of an assistant made with POST /assistants runs that assistant, and stops when it is deleted", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      try {
        const assistant = await client.assistants.create({ graphId: "slow", name: "nightly" });
        const cron = await client.crons.create(assistant.assistant_id, {
          schedule: "* * * * *",
          input: { delayMs: 0 },
          onRunCompleted: "keep",
        });
        await moveTo(clock, at("10:01:00"));
        const [runId] = await server.crons.tick();
        const [thread] = await eventually(async () => {
          const found = await client.threads.search({ metadata: { cron_id: cron.cron_id } });
          return found.length === 1 && found;
        });
        const run = await client.runs.get(thread?.thread_id as string, runId as string);
        expect(run.assistant_id).toBe(assistant.assistant_id);
        await client.runs.join(thread?.thread_id as string, runId as string);
        expect(thread?.metadata).toMatchObject({ graph_id: "slow", assistant_id: assistant.assistant_id });

        await client.assistants.delete(assistant.assistant_id);
        await moveTo(clock, at("10:02:00"));
        expect(await server.crons.tick()).toEqual([]);
      } finally {
        await server.close();
      }
    });

    it("a thread's cron goes with its thread", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const { server, client } = await cronServer(backend, clock);
      await clearCrons(client);
      try {
        const thread = await client.threads.create({ graphId: "slow" });
        const cron = await client.crons.createForThread(thread.thread_id, "slow", { schedule: "* * * * *" });
        await client.threads.delete(thread.thread_id);
        await moveTo(clock, at("10:01:00"));
        expect(await server.crons.tick()).toEqual([]);
        await expect(client.crons.update(cron.cron_id, { enabled: true })).rejects.toThrow(/404/);
      } finally {
        await server.close();
      }
    });
  });
}
