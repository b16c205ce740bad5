import type { Clock, HolderCheck, Serializer } from "@trellis/checkpoint";
import type pg from "pg";

/**
 * Options of {@link PostgresSaver}. Give a `pool`, or what to build one from.
 *
 * @example
 * new PostgresSaver({ connectionString: "postgres://app@db/app", schema: "trellis", poolConfig: { max: 10 } });
 */
export interface PostgresSaverOptions {
  /** A pool to use; the saver will not end it. */
  pool?: pg.Pool;
  /** e.g. `postgres://user@127.0.0.1:5432/app`, used when no `pool` is given. */
  connectionString?: string;
  /** More settings for the pool the saver builds (size, timeouts, SSL…). */
  poolConfig?: pg.PoolConfig;
  /** Schema holding the tables; created by the first migration. Default `trellis`. */
  schema?: string;
  /** Retries of a statement or transaction whose connection broke. Default 3. */
  retries?: number;
  serializer?: Serializer;
  clock?: Clock;
  /**
   * Decides whether a lease's holder is provably dead, so its lease is free before it expires. Default
   * `isLocalHolderDead`: a process of this host whose pid is gone or was reused; never one of another host.
   */
  isHolderDead?: HolderCheck;
}
