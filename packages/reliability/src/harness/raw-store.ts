import BetterSqlite3 from "better-sqlite3";
import { Redis } from "ioredis";
import pg from "pg";
import type { SaverTarget } from "./saver-targets.js";

/** A stored row of a thread, as the saver wrote it: its body and the checksum kept beside it. */
export interface RawRow {
  kind: "checkpoint" | "blob";
  /** The checkpoint id, or the blob's version. */
  id: string;
  /** Blobs: their channel, kind and base version. */
  channel?: string;
  blobKind?: "full" | "delta";
  base?: string | null;
  body: string;
  sum: string;
}

/**
 * Reads and damages a saver's rows behind its back, for corruption tests: the same three operations
 * on SQLite, PostgreSQL and Redis, whatever their layout.
 *
 * @example
 * const raw = openRawStore(target);
 * const [head] = await raw.rows(threadId, "checkpoint");
 * await raw.update(threadId, head, head.body.slice(0, 10), head.sum); // truncated, old checksum
 */
export interface RawStore {
  /** The thread's rows of one kind in the root namespace, newest id first. */
  rows(threadId: string, kind: RawRow["kind"]): Promise<RawRow[]>;
  /** Replaces a row's body and checksum. */
  update(threadId: string, row: RawRow, body: string, sum: string): Promise<void>;
  /** Deletes a row. */
  remove(threadId: string, row: RawRow): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens raw access to the storage of `target`.
 *
 * @example
 * const raw = openRawStore({ kind: "sqlite", filename });
 */
export function openRawStore(target: SaverTarget): RawStore {
  switch (target.kind) {
    case "sqlite":
      return sqliteRaw(target.filename);
    case "postgres":
      return postgresRaw(target.url, target.schema);
    case "redis":
      return redisRaw(target.url, target.keyPrefix);
  }
}

interface SqlRow {
  id: string;
  channel?: string;
  kind?: "full" | "delta";
  base?: string | null;
  body: string;
  sum: string;
}

const SELECT = {
  checkpoint: "SELECT id, body, sum FROM checkpoints WHERE thread_id = $1 AND ns = '' ORDER BY id DESC",
  blob: "SELECT version AS id, channel, kind, base, body, sum FROM blobs WHERE thread_id = $1 AND ns = '' ORDER BY version DESC",
};

function toRaw(kind: RawRow["kind"], r: SqlRow): RawRow {
  return kind === "checkpoint"
    ? { kind, id: r.id, body: r.body, sum: r.sum }
    : {
        kind,
        id: r.id,
        channel: r.channel as string,
        blobKind: r.kind as "full",
        base: r.base ?? null,
        body: r.body,
        sum: r.sum,
      };
}

function sqliteRaw(filename: string): RawStore {
  const db = new BetterSqlite3(filename, { timeout: 10_000 });
  const where = (row: RawRow) =>
    row.kind === "checkpoint"
      ? { table: "checkpoints", clause: "thread_id = ? AND ns = '' AND id = ?", args: [row.id] }
      : {
          table: "blobs",
          clause: "thread_id = ? AND ns = '' AND channel = ? AND version = ?",
          args: [row.channel, row.id],
        };
  return {
    async rows(threadId, kind) {
      return (db.prepare(SELECT[kind].replace("$1", "?")).all(threadId) as SqlRow[]).map((r) => toRaw(kind, r));
    },
    async update(threadId, row, body, sum) {
      const w = where(row);
      db.prepare(`UPDATE ${w.table} SET body = ?, sum = ? WHERE ${w.clause}`).run(body, sum, threadId, ...w.args);
    },
    async remove(threadId, row) {
      const w = where(row);
      db.prepare(`DELETE FROM ${w.table} WHERE ${w.clause}`).run(threadId, ...w.args);
    },
    async close() {
      db.close();
    },
  };
}

function postgresRaw(url: string, schema: string): RawStore {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const s = `"${schema.replace(/"/g, '""')}"`;
  const where = (row: RawRow) =>
    row.kind === "checkpoint"
      ? { table: `${s}.checkpoints`, clause: "thread_id = $1 AND ns = '' AND id = $2", args: [row.id] }
      : {
          table: `${s}.blobs`,
          clause: "thread_id = $1 AND ns = '' AND channel = $2 AND version = $3",
          args: [row.channel, row.id],
        };
  return {
    async rows(threadId, kind) {
      const sql = SELECT[kind].replace(/FROM (\w+)/, (_m, t) => `FROM ${s}.${t}`);
      return (await pool.query<SqlRow>(sql, [threadId])).rows.map((r) => toRaw(kind, r));
    },
    async update(threadId, row, body, sum) {
      const w = where(row);
      const n = w.args.length + 2;
      await pool.query(`UPDATE ${w.table} SET body = $${n}, sum = $${n + 1} WHERE ${w.clause}`, [
        threadId,
        ...w.args,
        body,
        sum,
      ]);
    },
    async remove(threadId, row) {
      const w = where(row);
      await pool.query(`DELETE FROM ${w.table} WHERE ${w.clause}`, [threadId, ...w.args]);
    },
    async close() {
      await pool.end();
    },
  };
}

const SUM = 16;

/** RedisSaver's layout: hashes `<prefix>{thread}:c` (ns\0id → sum+body) and `:b` (ns\0channel\0version → sum, kind, base, \0, body). */
function redisRaw(url: string, prefix: string): RawStore {
  const client = new Redis(url);
  const key = (threadId: string, kind: RawRow["kind"]) => `${prefix}{${threadId}}:${kind === "checkpoint" ? "c" : "b"}`;
  const field = (row: RawRow) =>
    row.kind === "checkpoint" ? `\u0000${row.id}` : `\u0000${row.channel}\u0000${row.id}`;
  return {
    async rows(threadId, kind) {
      const all = await client.hgetall(key(threadId, kind));
      const out: RawRow[] = [];
      for (const [f, v] of Object.entries(all)) {
        const parts = f.split("\u0000");
        if (parts[0] !== "") continue;
        if (kind === "checkpoint") {
          out.push({ kind, id: parts[1] as string, sum: v.slice(0, SUM), body: v.slice(SUM) });
        } else {
          const nul = v.indexOf("\u0000", SUM + 1);
          out.push({
            kind,
            channel: parts[1] as string,
            id: parts[2] as string,
            blobKind: v[SUM] === "f" ? "full" : "delta",
            base: v[SUM] === "f" ? null : v.slice(SUM + 1, nul),
            sum: v.slice(0, SUM),
            body: v.slice(nul + 1),
          });
        }
      }
      return out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    },
    async update(threadId, row, body, sum) {
      const value =
        row.kind === "checkpoint"
          ? `${sum}${body}`
          : `${sum}${row.blobKind === "full" ? "f" : "d"}${row.base ?? ""}\u0000${body}`;
      await client.hset(key(threadId, row.kind), field(row), value);
    },
    async remove(threadId, row) {
      await client.hdel(key(threadId, row.kind), field(row));
      // Checkpoints are also listed in the namespace's index.
      if (row.kind === "checkpoint") await client.zrem(`${prefix}{${threadId}}:i:`, row.id);
    },
    async close() {
      await client.quit();
    },
  };
}
