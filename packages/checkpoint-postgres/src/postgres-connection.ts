import { setTimeout as sleep } from "node:timers/promises";
import type { Pool, PoolClient, QueryResultRow } from "pg";

/** Runs one statement: unnamed, parameterised (PgBouncer transaction pooling safe). */
export type Query = <R extends QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;

const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown (pg_terminate_backend, server restart)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/**
 * True when `error` means the connection broke (so the statement may or may not have run), as opposed
 * to the server refusing it.
 * @internal
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connection error|Client was closed|not queryable|socket hang up/i.test(error.message);
}

/**
 * Runs statements and transactions on a pool, retrying on a new connection when one breaks. Only safe
 * because every write of the saver is an idempotent upsert: a transaction whose COMMIT was sent but
 * never acknowledged is either applied once or not at all, and running it again changes nothing more.
 * @internal
 */
export class PgRunner {
  readonly #pool: Pool;
  readonly #retries: number;

  constructor(pool: Pool, retries: number) {
    this.#pool = pool;
    this.#retries = retries;
  }

  /** One statement outside a transaction. */
  query: Query = (sql, params) => this.#withRetry(async () => (await this.#pool.query(sql, params)).rows);

  /**
   * `fn` inside BEGIN … COMMIT on one connection; rolled back if it throws, retried if the connection
   * broke. `quick`: committed with `synchronous_commit = off` (set in the `BEGIN`'s round trip), so the
   * commit does not wait for the WAL flush; the next synchronous commit of the cluster flushes it along.
   */
  transaction<T>(fn: (query: Query) => Promise<T>, quick = false): Promise<T> {
    return this.#withRetry(async () => {
      const client = await this.#pool.connect();
      let broken = false;
      // A checked-out client that loses its socket emits "error"; unheard, that would crash the process.
      const onError = () => {
        broken = true;
      };
      client.on("error", onError);
      try {
        await client.query(quick ? "BEGIN; SET LOCAL synchronous_commit = off" : "BEGIN");
        const result = await fn(queryOn(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        broken = isConnectionError(error);
        if (!broken) {
          await client.query("ROLLBACK").catch(() => {
            broken = true;
          });
        }
        throw error;
      } finally {
        client.off("error", onError);
        // A broken client is destroyed rather than returned to the pool.
        client.release(broken);
      }
    });
  }

  async #withRetry<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (attempt >= this.#retries || !isConnectionError(error)) throw error;
        await sleep(Math.min(1_000, 25 * 2 ** attempt));
      }
    }
  }
}

function queryOn(client: PoolClient): Query {
  return async (sql, params) => (await client.query(sql, params)).rows;
}
