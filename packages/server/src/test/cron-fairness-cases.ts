/**
 * The cron fairness case every storage runs: one user cannot monopolise the cron scheduler. Due ticks
 * are taken in turns between owners (a look takes at most 50), and a flood of refused ticks writes a
 * few warning lines a minute, not one per tick.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import type { TrellisConfig } from "../config/config.js";
import type { LogEntry } from "../operations/worker-log.js";
import { createServer } from "../server.js";
import { at, moveTo } from "./cron-cases.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

/** Registers the case on `saver` (a fresh SQLite file when absent). */
export function cronTurnsCase(label: string, saver?: TrellisConfig["saver"]): void {
  const dir = mkdtempSync(join(tmpdir(), "trellis-cron-fair-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe(`the cron scheduler between users (${label})`, () => {
    it("takes ticks in turns between owners; bob's 120 refused ticks log at most 10 lines", async () => {
      const clock = new ManualClock(at("10:00:30"));
      const log: LogEntry[] = [];
      // the ticks' runs wait for their ends on one signal: more than 10 of them is no listener leak
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on("warning", onWarning);
      const server = await createServer(
        {
          graphs: TEST_GRAPHS,
          saver: saver ?? { kind: "sqlite", path: join(dir, "crons.sqlite") },
          auth: {
            enabled: true,
            credentials: [
              { user: "bob", apiKey: "key-bob" },
              { user: "alice", apiKey: "key-alice" },
            ],
          },
          limits: { cronsPerUser: 200, queuedRunsPerUser: 10 },
          baseDir: PACKAGE_DIR,
        },
        // an API-only process: the runs the ticks start stay queued
        { env: {}, workers: 0, crons: { clock, pollMs: 1e12, log: (e) => log.push(e) } },
      );
      const { url } = await server.listen(0);
      const cron = async (key: string) => {
        const res = await fetch(`${url}/runs/crons`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "slow", schedule: "* * * * *", input: { delayMs: 0 } }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { cron_id: string }).cron_id;
      };
      try {
        for (let i = 0; i < 120; i++) await cron("key-bob");
        const alices = await cron("key-alice");
        await moveTo(clock, at("10:01:00"));
        // the first look, though bob's 120 ticks are due with hers: hers is in it
        const first = await server.crons.tick();
        const firstRuns = await Promise.all(first.map((id) => server.store.getRun(id)));
        expect(firstRuns.map((r) => r?.metadata.cron_id)).toContain(alices);
        // the next looks take bob's other ticks: his queue holds 10, the rest are refused (429)
        for (let look = 0; look < 4; look++) await server.crons.tick();
        expect(await server.crons.crons.due(clock.now(), 1)).toEqual([]);
        expect(await server.store.pendingRunsOf?.("bob")).toBe(10);
        const refused = log.filter((e) => e.event === "cron-run-refused");
        expect(refused.length).toBeGreaterThan(0);
        expect(refused.length).toBeLessThanOrEqual(10); // of 110 refused ticks
        expect((refused[0]?.error as { code?: string } | undefined)?.code).toBe("TOO_MANY_REQUESTS");
        await new Promise((resolve) => setImmediate(resolve)); // a warning is emitted on the next tick
        expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
      } finally {
        process.off("warning", onWarning);
        await server.close();
      }
    });
  });
}
