import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  encodeBlobs,
  encodeCheckpoint,
  encodeWrites,
  jsonSerializer,
  type PutRequest,
  TrellisError,
} from "@trellis/checkpoint";
import { stepRequest } from "@trellis/checkpoint/testing";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { migrateSqlite, SQLITE_SCHEMA_VERSION } from "./sqlite-migrations.js";
import { SqliteSaver } from "./sqlite-saver.js";

const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-migrations-"));
let n = 0;
const file = () => join(dir, `m-${++n}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A step's checkpoint, values and writes as rows written by hand, as an older saver stored them (inline). */
function insertByHand(db: BetterSqlite3.Database, request: PutRequest): void {
  const { threadId, id } = request.checkpoint;
  const cp = encodeCheckpoint(jsonSerializer, request.checkpoint);
  db.prepare("INSERT INTO checkpoints (thread_id, ns, id, body, sum) VALUES (?, '', ?, ?, ?)").run(
    threadId,
    id,
    cp.body,
    cp.sum,
  );
  const blob = db.prepare(
    "INSERT INTO blobs (thread_id, ns, channel, version, kind, base, body, sum) VALUES (?, '', ?, ?, ?, ?, ?, ?)",
  );
  for (const b of encodeBlobs(jsonSerializer, request.blobs)) {
    blob.run(threadId, b.channel, b.version, b.kind, b.base, b.body, b.sum);
  }
  const write = db.prepare(
    "INSERT INTO writes (thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum) VALUES (?, '', ?, ?, ?, 1, ?, ?)",
  );
  for (const w of encodeWrites(jsonSerializer, request.writes ?? [])) {
    write.run(threadId, id, w.taskId, w.channel, w.body, w.sum);
  }
}

describe("SqliteSaver schema and settings", () => {
  it("creates the latest schema on a new file and records each migration", async () => {
    const saver = new SqliteSaver({ filename: file() });
    expect(saver.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    const applied = saver.database.prepare("SELECT version FROM trellis_migrations ORDER BY version").all();
    expect(applied).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }]);
    await saver.close();
  });

  it("migrates a file written at schema version 1 and keeps its threads", async () => {
    const filename = file();
    const old = new BetterSqlite3(filename);
    expect(migrateSqlite(old, { to: 1 })).toBe(1);
    // Write a thread the way version 1 stored it: same rows, no expiry index yet.
    const request = stepRequest({
      threadId: "legacy",
      id: "0001",
      full: { messages: ["hi"] },
      writes: [{ taskId: "t", channel: "messages", value: "pending" }],
    });
    old.prepare("INSERT INTO threads (thread_id, ttl_ms, touched_at) VALUES ('legacy', 1000, 0)").run();
    insertByHand(old, request);
    const indexes = () =>
      old.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'threads_expiry'").all();
    expect(indexes()).toEqual([]);
    old.close();

    const clock = { now: () => 500, setTimeout: () => 0, clearTimeout: () => {} };
    const saver = new SqliteSaver({ filename, clock });
    expect(saver.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    const tuple = await saver.get({ threadId: "legacy" });
    expect(tuple?.values).toEqual({ messages: ["hi"] });
    expect(tuple?.pendingWrites).toEqual([{ taskId: "t", channel: "messages", value: "pending" }]);
    const plan = saver.database
      .prepare("EXPLAIN QUERY PLAN SELECT thread_id FROM threads WHERE ttl_ms IS NOT NULL AND touched_at + ttl_ms <= ?")
      .all(0) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("threads_expiry");
    await saver.close();
    // Reopening is a no-op.
    const again = new SqliteSaver({ filename });
    expect(again.database.prepare("SELECT COUNT(*) AS n FROM trellis_migrations").get()).toEqual({
      n: SQLITE_SCHEMA_VERSION,
    });
    await again.close();
  });

  it("migrates a version 2 file with long values stored inline: they read as before, and new puts share them", async () => {
    const filename = file();
    const old = new BetterSqlite3(filename);
    expect(migrateSqlite(old, { to: 2 })).toBe(2);
    const long = { doc: "long value ".repeat(400) };
    const request = stepRequest({
      threadId: "legacy",
      id: "0001",
      full: { doc: long },
      writes: [{ taskId: "t", channel: "doc", value: long }],
    });
    old.prepare("INSERT INTO threads (thread_id, touched_at) VALUES ('legacy', 0)").run();
    insertByHand(old, request);
    old.close();

    const saver = new SqliteSaver({ filename });
    expect(saver.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    const before = await saver.storedBytes("legacy");
    expect(await saver.get({ threadId: "legacy" })).toMatchObject({
      values: { doc: long },
      pendingWrites: [{ taskId: "t", channel: "doc", value: long }],
    });
    // A later step writes the same value to two keys: stored once more, not twice.
    const next = stepRequest({
      threadId: "legacy",
      id: "0002",
      parent: request.checkpoint,
      full: { doc: long, copy: long },
    });
    await saver.put(next);
    expect(await saver.storedBytes("legacy")).toBeLessThan(before + JSON.stringify(long).length * 1.5);
    expect((await saver.get({ threadId: "legacy" }))?.values).toEqual({ doc: long, copy: long });
    expect((await saver.get({ threadId: "legacy", checkpointId: "0001" }))?.values).toEqual({ doc: long });
    await saver.close();
  });

  it("migrates a version 3 file: its rows read as before, from tables clustered by their key", async () => {
    const long = { doc: "long value ".repeat(400) };
    const request = stepRequest({
      threadId: "legacy",
      id: "0001",
      full: { messages: ["hi"], doc: long },
      writes: [{ taskId: "t", channel: "messages", value: "pending" }],
    });
    // rows as version 3 stored them (rowid tables), written by hand
    const fresh = file();
    const at3 = new BetterSqlite3(fresh);
    expect(migrateSqlite(at3, { to: 3 })).toBe(3);
    at3
      .prepare(
        "INSERT INTO threads (thread_id, ttl_ms, touched_at, lease_owner, lease_epoch) VALUES ('legacy', 60000, ?, 'w', 7)",
      )
      .run(Date.now());
    insertByHand(at3, request);
    at3.close();

    const saver = new SqliteSaver({ filename: fresh });
    expect(saver.schemaVersion).toBe(SQLITE_SCHEMA_VERSION);
    const tuple = await saver.get({ threadId: "legacy" });
    expect(tuple?.values).toEqual({ messages: ["hi"], doc: long });
    expect(tuple?.pendingWrites).toEqual([{ taskId: "t", channel: "messages", value: "pending" }]);
    const lease = saver.database.prepare("SELECT lease_owner, lease_epoch, ttl_ms FROM threads").get();
    expect(lease).toEqual({ lease_owner: "w", lease_epoch: 7, ttl_ms: 60000 });
    const tables = saver.database
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ('threads', 'checkpoints', 'blobs', 'writes', 'bodies') ORDER BY name",
      )
      .all() as { name: string; sql: string }[];
    expect(tables.map((t) => [t.name, /WITHOUT ROWID/.test(t.sql)])).toEqual([
      ["blobs", true],
      ["bodies", false],
      ["checkpoints", true],
      ["threads", true],
      ["writes", true],
    ]);
    const plan = saver.database
      .prepare("EXPLAIN QUERY PLAN SELECT thread_id FROM threads WHERE ttl_ms IS NOT NULL AND touched_at + ttl_ms <= ?")
      .all(0) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(" ")).toContain("threads_expiry");
    // and it keeps working: a new step on the migrated thread, shared long value stored once
    await saver.put(
      stepRequest({ threadId: "legacy", id: "0002", parent: request.checkpoint, full: { messages: ["hi", "again"] } }),
    );
    expect((await saver.get({ threadId: "legacy" }))?.values).toEqual({ messages: ["hi", "again"], doc: long });
    await saver.close();
  });

  it("refuses a file written by a newer schema version", () => {
    const filename = file();
    const db = new BetterSqlite3(filename);
    migrateSqlite(db);
    db.prepare("INSERT INTO trellis_migrations VALUES (99, 'from the future', 0)").run();
    db.close();
    const error = (() => {
      try {
        return new SqliteSaver({ filename });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(TrellisError);
    expect((error as TrellisError).code).toBe("MIGRATION");
  });

  it("opens in WAL with synchronous=FULL by default, NORMAL on request, and a busy timeout", async () => {
    const full = new SqliteSaver({ filename: file() });
    expect(full.database.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(full.database.pragma("synchronous", { simple: true })).toBe(2);
    expect(full.database.pragma("busy_timeout", { simple: true })).toBe(5000);
    await full.close();
    const normal = new SqliteSaver({ filename: file(), synchronous: "NORMAL", busyTimeoutMs: 1234 });
    expect(normal.database.pragma("synchronous", { simple: true })).toBe(1);
    expect(normal.database.pragma("busy_timeout", { simple: true })).toBe(1234);
    await normal.close();
  });

  it("needs a filename or a database", () => {
    expect(() => new SqliteSaver({})).toThrow(/filename/);
  });

  it("leaves a database it was given open", async () => {
    const db = new BetterSqlite3(":memory:");
    const saver = new SqliteSaver({ database: db });
    await saver.close();
    expect(db.open).toBe(true);
    db.close();
  });
});
