import type { Clock, HolderCheck, Serializer } from "@trellis/checkpoint";
import type { Database } from "better-sqlite3";

/**
 * Options of {@link SqliteSaver}.
 *
 * @example
 * new SqliteSaver({ filename: "./trellis.db", synchronous: "NORMAL", busyTimeoutMs: 10_000 });
 */
export interface SqliteSaverOptions {
  /** Path of the database file, or `":memory:"`. Ignored when `database` is given. */
  filename?: string;
  /** An open better-sqlite3 database to use instead of opening `filename`; the saver will not close it. */
  database?: Database;
  /**
   * `FULL` (the default, for `sync` durability): a put is on disk before it returns, even through a
   * power cut. `NORMAL`: faster; in WAL mode a power cut may lose the last puts, never corrupt the file.
   */
  synchronous?: "FULL" | "NORMAL";
  /** How long a write waits for another process's transaction before failing. Default 5000 ms. */
  busyTimeoutMs?: number;
  serializer?: Serializer;
  clock?: Clock;
  /**
   * Decides whether a lease's holder is provably dead, so its lease is free before it expires. Default
   * `isLocalHolderDead`: a process of this host whose pid is gone or was reused; never one of another host.
   */
  isHolderDead?: HolderCheck;
}
