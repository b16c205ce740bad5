import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreConformance, TEST_EMBEDDING_DIMS, testEmbedding } from "@trellis/checkpoint/testing";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "./sqlite-saver.js";
import { SQLITE_STORE_MIGRATIONS, SqliteStore } from "./sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-store-"));
let files = 0;
const filenames = new WeakMap<SqliteStore, string>();

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeStoreConformance({
  name: "SqliteStore (file)",
  create: (options) => {
    const filename = join(dir, `store-${++files}.db`);
    const store = new SqliteStore({ filename, ...options });
    filenames.set(store, filename);
    return store;
  },
  reopen: (store, { clock }) => new SqliteStore({ filename: filenames.get(store) as string, clock }),
});

describe("SqliteStore in the saver's file", () => {
  it("shares the saver's database, keeps its own migrations, and survives a reopen of the file", async () => {
    const filename = join(dir, "shared.db");
    const saver = new SqliteSaver({ filename });
    const store = new SqliteStore({ database: saver.database });
    await store.put(["memories", "ana"], "m1", { text: "likes tea" });
    await store.close(); // does not close the saver's database
    expect(saver.database.open).toBe(true);
    const versions = saver.database.prepare("SELECT version FROM trellis_store_migrations").all();
    expect(versions).toEqual(SQLITE_STORE_MIGRATIONS.map((m) => ({ version: m.version })));
    await saver.close?.();
    const again = new SqliteStore({ filename });
    expect((await again.get(["memories", "ana"], "m1"))?.value).toEqual({ text: "likes tea" });
    await again.close();
  });
});

describe("SqliteStore reads", () => {
  it("searches items without a TTL while another connection holds the write lock (a search writes only to restart TTLs)", async () => {
    const filename = join(dir, "reads.db");
    const store = new SqliteStore({ database: new BetterSqlite3(filename, { timeout: 0 }) });
    await store.put(["r"], "plain", { a: 1 });
    await store.put(["r"], "expiring", { a: 2 }, { ttl: 60 });
    const writer = new BetterSqlite3(filename, { timeout: 0 });
    writer.exec("BEGIN IMMEDIATE");
    try {
      expect((await store.search(["r"], { filter: { a: 1 } })).map((i) => i.key)).toEqual(["plain"]);
      expect((await store.get(["r"], "plain"))?.value).toEqual({ a: 1 });
      // restarting a TTL is a write: it waits for the lock like any other
      await expect(store.search(["r"], { filter: { a: 2 } })).rejects.toThrow(/locked|busy/i);
      expect((await store.search(["r"], { filter: { a: 2 }, refreshTtl: false })).map((i) => i.key)).toEqual([
        "expiring",
      ]);
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
      store.database.close();
    }
  });
});

describe("SqliteStore after its index changed", () => {
  it("leaves items embedded by an index of another size unscored instead of comparing unlike vectors", async () => {
    const filename = join(dir, "reindex.db");
    const before = new SqliteStore({ filename, index: { embed: testEmbedding, dims: TEST_EMBEDDING_DIMS } });
    await before.put(["m"], "old", { text: "green tea" });
    await before.close();
    const embed8 = async (texts: string[]) => texts.map((t) => Array.from({ length: 8 }, (_, i) => (t.length + i) % 3));
    const after = new SqliteStore({ filename, index: { embed: embed8, dims: 8 } });
    await after.put(["m"], "new", { text: "green tea" });
    const hits = await after.search(["m"], { query: "green tea" });
    expect(hits.map((h) => [h.key, h.score === undefined])).toEqual([
      ["new", false],
      ["old", true],
    ]);
    await after.close();
  });
});
