import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type { Database, Statement } from "better-sqlite3";

/**
 * What (e)'s six write transactions per thread cost SQLite alone, with no runtime and no serializing:
 * bare statements writing rows of (e)'s sizes, under `synchronous=NORMAL`, on three layouts.
 *
 * - `saver`: the tables of a file `SqliteSaver` made (its current schema), and the rows its six
 *   transactions write (fewer statements than the saver runs: no checks, so a lower bound);
 * - `one-table`: every row of a thread, its lease too, in one table clustered by thread;
 * - `append`: six appends of one checkpoint-sized row to a rowid table, the least six commits can cost.
 *
 * Prints the median wall and CPU time per thread over the runs, and the WAL frames per thread (from a
 * run whose WAL is never checkpointed):
 *
 *   node bench/dist/sqlite-protocol.js [saver|one-table|append] [runs]
 */
const THREADS = 200;
const CHECKPOINT = "c".repeat(400); // (e)'s checkpoint rows are 400–440 bytes, its writes ~70, its values ~5
const WRITE = "w".repeat(70);
const SUM = "Wo3ZaOI4cH3V4L-M";

type Layout = "saver" | "one-table" | "append";

/** One thread's six transactions, in the order (e) commits them. */
interface Protocol {
  /** Start: the lease on a new thread; the input's checkpoint; the pause's write with the release. */
  start(thread: string, input: string): void;
  pause(thread: string, input: string): void;
  /** Resume: the lease with the read; the answered step; the last step with the release. */
  resume(thread: string, input: string, answered: string, last: string): void;
}

async function main(): Promise<void> {
  const layout = (process.argv[2] ?? "saver") as Layout;
  const runs = Number.parseInt(process.argv[3] ?? "9", 10);
  if (!["saver", "one-table", "append"].includes(layout)) throw new Error(`unknown layout ${layout}`);
  const dir = mkdtempSync(join(tmpdir(), "trellis-sqlite-protocol-"));
  try {
    const frames = (await measure(layout, join(dir, "counted.sqlite"), true)).frames;
    const samples: { wall: number; cpu: number }[] = [];
    for (let r = -2; r < runs; r++) {
      const sample = await measure(layout, join(dir, `run-${r + 2}.sqlite`), false);
      if (r >= 0) samples.push(sample);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    console.log(
      `${layout}: ${median(samples.map((s) => s.wall)).toFixed(0)} µs wall, ${median(samples.map((s) => s.cpu)).toFixed(0)} µs CPU, ${frames.toFixed(1)} WAL frames per thread (median of ${runs} runs of ${THREADS} threads)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  layout: Layout,
  file: string,
  countFrames: boolean,
): Promise<{ wall: number; cpu: number; frames: number }> {
  const saver = new SqliteSaver({ filename: file, synchronous: "NORMAL" });
  const db = saver.database;
  if (countFrames) db.pragma("wal_autocheckpoint = 0");
  const protocol = layout === "saver" ? saverTables(db) : layout === "one-table" ? oneTable(db) : appends(db);
  let id = 0x01a225db69b10000n;
  const nextId = () => (id++).toString(16).padStart(32, "0");
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < THREADS; i++) {
    const thread = `thread-${i}`;
    const input = nextId();
    protocol.start(thread, input);
    protocol.pause(thread, input);
    protocol.resume(thread, input, nextId(), nextId());
  }
  const wall = ((performance.now() - wall0) * 1000) / THREADS;
  const used = process.cpuUsage(cpu0);
  const frames = countFrames ? (statSync(`${file}-wal`).size - 32) / (4096 + 24) / THREADS : 0;
  await saver.close();
  return { wall, cpu: (used.user + used.system) / THREADS, frames };
}

/** A write transaction, as the saver opens one. */
function writer(db: Database): (fn: () => void) => void {
  const tx = db.transaction((fn: () => void) => fn());
  return (fn) => tx.immediate(fn);
}

/** The statements of (e)'s six transactions on one layout: every row a transaction reads or writes. */
interface Statements {
  thread: Statement;
  insertThread: Statement;
  lease: Statement;
  release: Statement;
  /** (thread, id, body, sum) */
  checkpoint: Statement;
  /** (thread, channel, version, sum) */
  blob: Statement;
  /** (thread, checkpoint id, task, channel, seq, body, sum) */
  write: Statement;
  /** The newest checkpoint's id, as `id`. */
  head: Statement;
  blobsOf: Statement;
  writesOf: Statement;
}

/** (e)'s six transactions a thread, the same on every layout but the append log. */
function sixTransactions(db: Database, q: Statements): Protocol {
  const write = writer(db);
  return {
    start: (t, input) => {
      write(() => {
        q.thread.get(t);
        q.insertThread.run(t);
        q.lease.run(t);
      });
      write(() => {
        q.thread.get(t);
        q.checkpoint.run(t, input, CHECKPOINT, SUM);
        for (const channel of ["question", "answer", "done"]) q.blob.run(t, channel, input, SUM);
      });
    },
    pause: (t, input) =>
      write(() => {
        q.thread.get(t);
        q.write.run(t, input, "ask", "__interrupt__", 1, WRITE, SUM);
        q.release.run(t);
      }),
    resume: (t, input, answered, last) => {
      write(() => {
        q.thread.get(t);
        q.lease.run(t);
        const { id } = q.head.get(t) as { id: string };
        q.blobsOf.all(t);
        q.writesOf.all(t, id);
      });
      write(() => {
        q.thread.get(t);
        q.write.run(t, input, "ask", "__resume__", 2, WRITE, SUM);
        q.checkpoint.run(t, answered, CHECKPOINT, SUM);
        q.blob.run(t, "answer", answered, SUM);
        q.write.run(t, answered, "finish", "__result__", 1, WRITE, SUM);
      });
      write(() => {
        q.thread.get(t);
        q.checkpoint.run(t, last, CHECKPOINT, SUM);
        q.blob.run(t, "done", last, SUM);
        q.release.run(t);
      });
    },
  };
}

function saverTables(db: Database): Protocol {
  return sixTransactions(db, {
    thread: db.prepare("SELECT * FROM threads WHERE thread_id = ?"),
    insertThread: db.prepare("INSERT INTO threads (thread_id, touched_at) VALUES (?, 0)"),
    lease: db.prepare(
      "UPDATE threads SET lease_owner = 'o', lease_epoch = 1, lease_expires_at = 9 WHERE thread_id = ?",
    ),
    release: db.prepare("UPDATE threads SET lease_expires_at = 0 WHERE thread_id = ?"),
    checkpoint: db.prepare("INSERT INTO checkpoints (thread_id, ns, id, body, sum) VALUES (?, '', ?, ?, ?)"),
    blob: db.prepare(
      "INSERT INTO blobs (thread_id, ns, channel, version, kind, base, body, sum) VALUES (?, '', ?, ?, 'full', NULL, '\"v\"', ?)",
    ),
    write: db.prepare(
      "INSERT INTO writes (thread_id, ns, checkpoint_id, task_id, channel, seq, body, sum) VALUES (?, '', ?, ?, ?, ?, ?, ?)",
    ),
    head: db.prepare("SELECT id FROM checkpoints WHERE thread_id = ? AND ns = '' ORDER BY id DESC LIMIT 1"),
    blobsOf: db.prepare("SELECT * FROM blobs WHERE thread_id = ? AND ns = ''"),
    writesOf: db.prepare("SELECT * FROM writes WHERE thread_id = ? AND ns = '' AND checkpoint_id = ?"),
  });
}

function oneTable(db: Database): Protocol {
  db.exec(`CREATE TABLE thread_rows (
    thread_id TEXT NOT NULL, kind INTEGER NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, c TEXT NOT NULL,
    body TEXT, sum TEXT, seq INTEGER, lease_owner TEXT, lease_epoch INTEGER, lease_expires_at INTEGER,
    PRIMARY KEY (thread_id, kind, a, b, c)) WITHOUT ROWID`);
  const key = "thread_id = ? AND kind = 0 AND a = '' AND b = '' AND c = ''";
  return sixTransactions(db, {
    thread: db.prepare(`SELECT * FROM thread_rows WHERE ${key}`),
    insertThread: db.prepare("INSERT INTO thread_rows (thread_id, kind, a, b, c) VALUES (?, 0, '', '', '')"),
    lease: db.prepare(`UPDATE thread_rows SET lease_owner = 'o', lease_epoch = 1, lease_expires_at = 9 WHERE ${key}`),
    release: db.prepare(`UPDATE thread_rows SET lease_expires_at = 0 WHERE ${key}`),
    checkpoint: db.prepare(
      "INSERT INTO thread_rows (thread_id, kind, a, b, c, body, sum) VALUES (?, 1, ?, '', '', ?, ?)",
    ),
    blob: db.prepare(
      "INSERT INTO thread_rows (thread_id, kind, a, b, c, body, sum) VALUES (?, 2, ?, ?, '', '\"v\"', ?)",
    ),
    write: db.prepare(
      "INSERT INTO thread_rows (thread_id, kind, a, b, c, seq, body, sum) VALUES (?, 3, ?, ?, ?, ?, ?, ?)",
    ),
    head: db.prepare("SELECT a AS id FROM thread_rows WHERE thread_id = ? AND kind = 1 ORDER BY a DESC LIMIT 1"),
    blobsOf: db.prepare("SELECT * FROM thread_rows WHERE thread_id = ? AND kind = 2"),
    writesOf: db.prepare("SELECT * FROM thread_rows WHERE thread_id = ? AND kind = 3 AND a = ?"),
  });
}

function appends(db: Database): Protocol {
  db.exec("CREATE TABLE commit_log (seq INTEGER PRIMARY KEY, thread_id TEXT NOT NULL, body TEXT NOT NULL)");
  const write = writer(db);
  const append = db.prepare("INSERT INTO commit_log (thread_id, body) VALUES (?, ?)");
  const one = (t: string) => write(() => append.run(t, CHECKPOINT));
  return {
    start: (t) => {
      one(t);
      one(t);
    },
    pause: (t) => one(t),
    resume: (t) => {
      one(t);
      one(t);
      one(t);
    },
  };
}

await main();
