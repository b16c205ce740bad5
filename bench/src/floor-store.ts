import Database from "better-sqlite3";
import { dbPath, removeDb, settledSqliteBytes } from "./savers.js";
import { type SaverKind, sqliteSynchronous } from "./workload.js";

/**
 * The least a durable runtime must do per step, for the floors of workloads with a saver: serialize
 * what changed (new list items, changed keys) and append it to a store — a Map of strings, or one SQLite
 * row per step in WAL mode (with the saver kind's `synchronous`). No checkpoint bookkeeping, no
 * versions, no reads.
 */
export interface FloorStore {
  /** Appends one step's changes for a thread. */
  save(thread: string, changes: Record<string, unknown>): void;
  /** The thread's state: every saved step merged in order (lists in `appendKeys` are concatenated). */
  load(thread: string, appendKeys?: readonly string[]): Record<string, unknown>;
  bytes(): Promise<number>;
  dispose(): Promise<void>;
}

/** Makes a floor store of the given kind (`none` keeps nothing). */
export function floorStore(kind: SaverKind, dir: string): FloorStore {
  if (kind === "none") {
    return { save() {}, load: () => ({}), bytes: async () => 0, dispose: async () => {} };
  }
  if (kind === "memory") {
    const rows = new Map<string, string[]>();
    return {
      save(thread, changes) {
        let list = rows.get(thread);
        if (!list) {
          list = [];
          rows.set(thread, list);
        }
        list.push(JSON.stringify(changes));
      },
      load: (thread, appendKeys = []) => merge(rows.get(thread) ?? [], appendKeys),
      async bytes() {
        let total = 0;
        for (const list of rows.values()) for (const text of list) total += Buffer.byteLength(text);
        return total;
      },
      dispose: async () => {},
    };
  }
  const path = dbPath(dir, "floor");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${sqliteSynchronous(kind)}`);
  db.exec(
    "CREATE TABLE steps (thread TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (thread, seq))",
  );
  const insert = db.prepare("INSERT INTO steps (thread, seq, body) VALUES (?, ?, ?)");
  const select = db.prepare("SELECT body FROM steps WHERE thread = ? ORDER BY seq");
  const seqs = new Map<string, number>();
  let closed = false;
  return {
    save(thread, changes) {
      const seq = (seqs.get(thread) ?? 0) + 1;
      seqs.set(thread, seq);
      insert.run(thread, seq, JSON.stringify(changes));
    },
    load: (thread, appendKeys = []) =>
      merge(
        (select.all(thread) as Array<{ body: string }>).map((r) => r.body),
        appendKeys,
      ),
    async bytes() {
      db.close();
      closed = true;
      return settledSqliteBytes(path);
    },
    async dispose() {
      if (!closed) db.close();
      removeDb(path);
    },
  };
}

function merge(texts: readonly string[], appendKeys: readonly string[]): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const text of texts) {
    const changes = JSON.parse(text) as Record<string, unknown>;
    for (const [key, value] of Object.entries(changes)) {
      state[key] = appendKeys.includes(key) ? [...((state[key] as unknown[]) ?? []), ...(value as unknown[])] : value;
    }
  }
  return state;
}
