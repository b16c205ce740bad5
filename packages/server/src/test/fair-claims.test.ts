/**
 * Fair shares on the embedded SQLite queue, through HTTP with auth on and a server in a child process:
 * bob's 1,000 queued runs do not hold alice's run behind them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { aliceAfterBobsThousand } from "./fair-claims.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-fair-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fair shares between users (SQLite)", () => {
  it("alice's run starts before most of bob's 1,000 queued runs", async () => {
    const { aheadOfAlice, bobQueued } = await aliceAfterBobsThousand({
      saver: { kind: "sqlite", path: join(dir, "fair.sqlite") },
      queue: { kind: "embedded", concurrency: 2 },
    });
    // bob still had hundreds queued; ahead of alice: at most the runs already running, and a few that
    // started while her request was on its way
    console.log(
      `[fair shares, SQLite] bob had ${bobQueued} runs queued; ${aheadOfAlice} of them started before alice's`,
    );
    expect(bobQueued).toBeGreaterThan(200);
    expect(aheadOfAlice).toBeLessThan(20);
  }, 120_000);
});
