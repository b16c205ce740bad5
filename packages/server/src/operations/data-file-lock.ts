import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import {
  currentHolder,
  type HolderCheck,
  isLocalHolderDead,
  type LeaseHolder,
  parseLeaseOwner,
  processLeaseOwner,
  TrellisError,
} from "@trellis/checkpoint";
import BetterSqlite3, { type Database } from "better-sqlite3";

/**
 * One serving process per SQLite data file. A second server on the same file would find the first one's
 * runs "running", requeue them and run them again; so the process that serves a file records itself in
 * it (a row naming its host, pid and start time, like a lease's holder), a heartbeat keeps the row fresh,
 * and closing removes it. Another server opening the file refuses to start while that holder lives;
 * a holder that is provably dead (this host, pid gone or reused) is replaced at once, and one this
 * host cannot judge (another host or container sharing the file) once its heartbeat has stopped for
 * `staleAfterMs`.
 */
export interface DataFileLock {
  /** The owner recorded in the file: `server-<nonce>` and this process (see `processLeaseOwner`). */
  readonly owner: string;
  /** Removes this process's row and stops the heartbeat. */
  release(): Promise<void>;
}

/** Options of {@link takeDataFileLock}. */
export interface DataFileLockOptions {
  /** How often the holder refreshes its row. Default 5 s. */
  heartbeatMs?: number;
  /** A holder this host cannot judge whose row has not changed for this long is gone. Default 20 s. */
  staleAfterMs?: number;
  /** Judges holders of this host. Default `isLocalHolderDead`. */
  isHolderDead?: HolderCheck;
  /** Told when another process replaced this one's row (this one was judged gone). Default: logs. */
  onLost?: (holder: string) => void;
  /** Told when waiting for a holder of another host to show it is alive. */
  log?: (line: string) => void;
}

interface HolderRow {
  owner: string;
  host: string;
  pid: number;
  taken_at: number;
  heartbeat_at: number;
}

const TABLE = "server_data_file_holder";

/**
 * Records this process as the one server of the SQLite file `filename`, or throws `INVALID_CONFIG`
 * (`details.reason: "DATA_FILE_IN_USE"`) naming the file and the process that serves it.
 *
 * @example
 * const lock = await takeDataFileLock(".trellis/trellis.sqlite");
 * // … serve …
 * await lock.release();
 */
export async function takeDataFileLock(filename: string, options: DataFileLockOptions = {}): Promise<DataFileLock> {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const staleAfterMs = options.staleAfterMs ?? 20_000;
  const isHolderDead = options.isHolderDead ?? isLocalHolderDead;
  const file = resolve(filename);
  const db = new BetterSqlite3(file, { timeout: 5_000 });
  try {
    db.pragma("journal_mode = WAL");
    db.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      id           INTEGER PRIMARY KEY CHECK (id = 1),
      owner        TEXT NOT NULL,
      host         TEXT NOT NULL,
      pid          INTEGER NOT NULL,
      taken_at     INTEGER NOT NULL,
      heartbeat_at INTEGER NOT NULL
    )`);
    const owner = processLeaseOwner(`server-${randomBytes(4).toString("hex")}`);
    await claim(db, file, owner, { staleAfterMs, heartbeatMs, isHolderDead, log: options.log });
    return keep(db, owner, heartbeatMs, options.onLost ?? ((by) => logLost(file, by)));
  } catch (error) {
    db.close();
    throw error;
  }
}

async function claim(
  db: Database,
  file: string,
  owner: string,
  o: {
    staleAfterMs: number;
    heartbeatMs: number;
    isHolderDead: HolderCheck;
    log: ((line: string) => void) | undefined;
  },
): Promise<void> {
  const read = db.prepare(`SELECT owner, host, pid, taken_at, heartbeat_at FROM ${TABLE} WHERE id = 1`);
  const me = currentHolder();
  /** Takes the row if it still is `expected` (undefined: no row); false when it changed meanwhile. */
  const take = db.transaction((expected: HolderRow | undefined) => {
    const now = read.get() as HolderRow | undefined;
    if (now?.owner !== expected?.owner || now?.heartbeat_at !== expected?.heartbeat_at) return false;
    const at = Date.now();
    db.prepare(
      `INSERT OR REPLACE INTO ${TABLE} (id, owner, host, pid, taken_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)`,
    ).run(owner, me.host, me.pid, at, at);
    return true;
  });
  let watching: { row: HolderRow; since: number } | undefined;
  for (;;) {
    const row = read.get() as HolderRow | undefined;
    const holder = row ? parseLeaseOwner(row.owner).holder : undefined;
    if (!row || !holder || safely(o.isHolderDead, holder, row.owner)) {
      if (take.immediate(row)) return;
      continue; // another process changed the row between the read and the write: look again
    }
    if (holder.host === me.host && holder.scope !== "" && holder.scope === me.scope) {
      throw inUse(file, row, holder); // alive, on this host
    }
    // Another host or container: alive while its heartbeat moves.
    if (!watching || watching.row.owner !== row.owner) {
      watching = { row, since: Date.now() };
      o.log?.(
        `[trellis-server] ${file} is held by pid ${row.pid} on ${row.host}, which this host cannot check: waiting up to ${Math.round(o.staleAfterMs / 1000)} s for its heartbeat.`,
      );
    } else if (row.heartbeat_at !== watching.row.heartbeat_at) {
      throw inUse(file, row, holder);
    } else if (Date.now() - watching.since >= o.staleAfterMs) {
      if (take.immediate(row)) return;
      continue;
    }
    await new Promise((r) => setTimeout(r, Math.min(500, o.heartbeatMs)));
  }
}

function keep(db: Database, owner: string, heartbeatMs: number, onLost: (by: string) => void): DataFileLock {
  const beat = db.prepare(`UPDATE ${TABLE} SET heartbeat_at = ? WHERE id = 1 AND owner = ?`);
  const holderNow = db.prepare(`SELECT owner FROM ${TABLE} WHERE id = 1`);
  let released = false;
  const timer = setInterval(() => {
    try {
      if (beat.run(Date.now(), owner).changes === 1) return;
      clearInterval(timer);
      onLost((holderNow.get() as { owner: string } | undefined)?.owner ?? "nobody");
    } catch {
      // busy or briefly unwritable: the next beat tries again
    }
  }, heartbeatMs);
  timer.unref();
  return {
    owner,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      try {
        db.prepare(`DELETE FROM ${TABLE} WHERE id = 1 AND owner = ?`).run(owner);
      } finally {
        db.close();
      }
    },
  };
}

function safely(isHolderDead: HolderCheck, holder: LeaseHolder, owner: string): boolean {
  try {
    return isHolderDead(holder, owner) === true;
  } catch {
    return false;
  }
}

function inUse(file: string, row: HolderRow, holder: LeaseHolder): TrellisError {
  const since = new Date(row.taken_at).toISOString();
  return new TrellisError(
    "INVALID_CONFIG",
    `The data file ${file} is in use by another Trellis server (pid ${holder.pid} on ${holder.host}, since ${since}). Two servers on one SQLite file would run the same runs twice: stop that server first, or give this one another "saver.path". To run several processes, use a Postgres saver with a Redis queue.`,
    { details: { reason: "DATA_FILE_IN_USE", file, pid: holder.pid, host: holder.host, since } },
  );
}

function logLost(file: string, by: string): void {
  const holder = parseLeaseOwner(by).holder;
  console.error(
    `[trellis-server] this process no longer holds ${file}: ${holder ? `pid ${holder.pid} on ${holder.host}` : by} took it over after this process's heartbeat stopped. Stop this process: two servers on one SQLite file run the same runs twice.`,
  );
}
