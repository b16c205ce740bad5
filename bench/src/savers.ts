import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { MemorySaver as LangGraphMemorySaver } from "@langchain/langgraph";
import { SqliteSaver as LangGraphSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { CheckpointSaver } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import { MemorySaver } from "@trellis/core";
import Database from "better-sqlite3";
import { type SaverKind, sqliteSynchronous } from "./workload.js";

let fileCounter = 0;

/** A fresh database path in `dir`. */
export function dbPath(dir: string, label: string): string {
  fileCounter += 1;
  return join(dir, `${label}-${process.pid}-${fileCounter}.sqlite`);
}

/** Size of a SQLite database on disk: the main file plus its WAL, if any. */
export function sqliteBytes(path: string): number {
  let bytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      bytes += statSync(path + suffix).size;
    } catch {
      // no such file
    }
  }
  return bytes;
}

/** Folds the WAL into the main file (as a reader would see it settled) and reports the bytes on disk. */
export function settledSqliteBytes(path: string): number {
  const db = new Database(path);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return sqliteBytes(path);
}

/** Removes a database file and its companions. */
export function removeDb(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(path + suffix, { force: true });
}

/** A Trellis saver of the given kind, with how to measure and free it. */
export interface TrellisSaverHandle {
  saver: CheckpointSaver | undefined;
  bytes(threadIds: readonly string[]): Promise<number>;
  dispose(): Promise<void>;
}

/** Makes a fresh Trellis saver for one trial. */
export function trellisSaver(kind: SaverKind, dir: string): TrellisSaverHandle {
  if (kind === "none") return { saver: undefined, bytes: async () => 0, dispose: async () => {} };
  if (kind === "memory") {
    const saver = new MemorySaver();
    return {
      saver,
      async bytes(threadIds) {
        let total = 0;
        for (const id of threadIds) total += await saver.storedBytes(id);
        return total;
      },
      dispose: async () => {},
    };
  }
  const path = dbPath(dir, "trellis");
  const saver = new SqliteSaver({ filename: path, synchronous: sqliteSynchronous(kind) });
  let closed = false;
  return {
    saver,
    async bytes() {
      await saver.close();
      closed = true;
      return settledSqliteBytes(path);
    },
    async dispose() {
      if (!closed) await saver.close();
      removeDb(path);
    },
  };
}

/** A LangGraph.js saver of the given kind, with how to measure and free it. */
export interface LangGraphSaverHandle {
  saver: LangGraphMemorySaver | LangGraphSqliteSaver | undefined;
  bytes(): Promise<number>;
  dispose(): Promise<void>;
}

/** Makes a fresh LangGraph.js saver for one trial. */
export async function langGraphSaver(kind: SaverKind, dir: string): Promise<LangGraphSaverHandle> {
  if (kind === "none") return { saver: undefined, bytes: async () => 0, dispose: async () => {} };
  if (kind === "memory") {
    const { MemorySaver: LgMemorySaver } = await import("@langchain/langgraph");
    const saver = new LgMemorySaver();
    return { saver, bytes: async () => langGraphMemoryBytes(saver), dispose: async () => {} };
  }
  const path = dbPath(dir, "langgraph");
  const saver = LangGraphSqliteSaver.fromConnString(path);
  // `setup` (protected) opens WAL mode and the tables; the pragma must come after it. better-sqlite3 is
  // built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so LangGraph.js runs with NORMAL unless told.
  (saver as unknown as { setup(): void }).setup();
  saver.db.pragma(`synchronous = ${sqliteSynchronous(kind)}`);
  let closed = false;
  return {
    saver,
    async bytes() {
      saver.db.close();
      closed = true;
      return settledSqliteBytes(path);
    },
    async dispose() {
      if (!closed) saver.db.close();
      removeDb(path);
    },
  };
}

function sizeOf(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value);
  if (value instanceof Uint8Array) return value.byteLength;
  return 0;
}

/**
 * Bytes LangGraph.js's MemorySaver holds: the serialized checkpoints and metadata in `storage`, and the
 * serialized pending writes in `writes` — the same things Trellis's `storedBytes` counts.
 */
export function langGraphMemoryBytes(saver: LangGraphMemorySaver): number {
  let bytes = 0;
  for (const namespaces of Object.values(saver.storage)) {
    for (const checkpoints of Object.values(namespaces)) {
      for (const [checkpoint, metadata] of Object.values(checkpoints)) bytes += sizeOf(checkpoint) + sizeOf(metadata);
    }
  }
  for (const writes of Object.values(saver.writes)) {
    for (const [, , value] of Object.values(writes)) bytes += sizeOf(value);
  }
  return bytes;
}
