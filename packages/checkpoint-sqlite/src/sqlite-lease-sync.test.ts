import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { leaseOwnerOf } from "@trellis/checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "./sqlite-saver.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-lease-sync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SQLite's `synchronous` level: 1 NORMAL, 2 FULL. */
const level = (saver: SqliteSaver) => saver.database.pragma("synchronous", { simple: true });

// Lease writes commit with synchronous=NORMAL and put it back to FULL after (issue 25: the switch
// is a plain `exec`, not a `db.pragma()` call). These pin that the level really changes and returns.
describe("SqliteSaver lease writes and synchronous", () => {
  it("a FULL saver is FULL again after every lease write, and was NORMAL during it", async () => {
    const saver = new SqliteSaver({ filename: join(dir, "full.db") });
    try {
      expect(level(saver)).toBe(2);
      for (let i = 0; i < 3; i++) {
        const lease = await saver.acquireLease("t1", "me", 60_000);
        expect(level(saver)).toBe(2);
        await saver.renewLease(lease, 60_000);
        expect(level(saver)).toBe(2);
        await saver.releaseLease(lease);
        expect(level(saver)).toBe(2);
      }
      // the check runs inside the lease's transaction: the isHolderDead hook sees the level in force
      const seen: number[] = [];
      const peek = new SqliteSaver({
        filename: join(dir, "full.db"),
        isHolderDead: () => {
          seen.push(level(peek) as number);
          return true;
        },
      });
      try {
        const holder = { host: "h", scope: "s", pid: 1, start: "0" };
        await peek.acquireLease("t2", leaseOwnerOf("a", holder), 60_000);
        await peek.acquireLease("t2", "b", 60_000);
        expect(seen).toEqual([1]);
        expect(level(peek)).toBe(2);
      } finally {
        await peek.close();
      }
    } finally {
      await saver.close();
    }
  });

  it("a NORMAL saver stays NORMAL", async () => {
    const saver = new SqliteSaver({ filename: join(dir, "normal.db"), synchronous: "NORMAL" });
    try {
      const lease = await saver.acquireLease("t1", "me", 60_000);
      await saver.releaseLease(lease);
      expect(level(saver)).toBe(1);
    } finally {
      await saver.close();
    }
  });
});
