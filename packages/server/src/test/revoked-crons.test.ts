/**
 * A revoked user's crons stop: bob's cron ran while he had a credential; after a restart with his
 * credential removed, its ticks start no run (one warning, not one per tick) while alice's cron still runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import type { Credential } from "../config/config.js";
import type { LogEntry } from "../operations/worker-log.js";
import { createServer } from "../server.js";
import { at, moveTo } from "./cron-cases.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-revoked-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BOB: Credential = { user: "bob", apiKey: "key-bob" };
const ALICE: Credential = { user: "alice", apiKey: "key-alice" };

async function serve(credentials: Credential[], clock: ManualClock, log: LogEntry[] = []) {
  const server = await createServer(
    {
      graphs: TEST_GRAPHS,
      saver: { kind: "sqlite", path: join(dir, "revoked.sqlite") },
      auth: { enabled: true, credentials },
      baseDir: PACKAGE_DIR,
    },
    { env: {}, crons: { clock, pollMs: 1e12, log: (e) => log.push(e) } },
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
  return { server, cron };
}

describe("a revoked user's crons", () => {
  it("do not run once the user has no credential; logged once, not every tick", async () => {
    const clock = new ManualClock(at("10:00:30"));
    const first = await serve([BOB, ALICE], clock);
    const bobs = await first.cron("key-bob");
    const alices = await first.cron("key-alice");
    await moveTo(clock, at("10:01:00"));
    expect(await first.server.crons.tick()).toHaveLength(2); // both ran while bob had a credential
    await first.server.close();

    const log: LogEntry[] = [];
    const second = await serve([ALICE], clock, log);
    try {
      for (const minute of ["10:02:00", "10:03:00", "10:04:00"]) {
        await moveTo(clock, at(minute));
        const started = await second.server.crons.tick();
        expect(started).toHaveLength(1);
        const run = await second.server.store.getRun(started[0] as string);
        expect(run?.metadata.cron_id).toBe(alices);
        expect(run?.owner).toBe("alice");
      }
      expect(log.filter((e) => e.event === "cron-owner-revoked")).toEqual([
        expect.objectContaining({ level: "warn", cronId: bobs, userId: "bob" }),
      ]);
    } finally {
      await second.server.close();
    }
  });
});
