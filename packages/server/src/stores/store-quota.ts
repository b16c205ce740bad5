import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type pg from "pg";
import type { ResolvedConfig } from "../config/config.js";
import { quotedSchema } from "./postgres/postgres-migrate.js";
import { tooMany } from "./user-limits.js";

/**
 * What one user keeps in the store: live items and the bytes of their values (JSON).
 *
 * @example
 * const { items, bytes }: StoreUsage = await usageOf("user:ana");
 */
export interface StoreUsage {
  items: number;
  bytes: number;
}

/** Reads the usage of the items under one top-level label (`user:<id>`). */
export type StoreUsageReader = (label: string) => Promise<StoreUsage>;

const UNDER_SQLITE = "(ns = @label OR (ns >= @label || '.' AND ns < @label || '/'))";

/**
 * The usage reader of the server's item store: one indexed range count over `store_items` in its SQLite
 * file or its Postgres schema (the table of `SqliteStore` and `PostgresStore`, namespaces joined with
 * `.`). Undefined for other savers (their stores are not limited).
 *
 * @example
 * const usageOf = storeUsageOf(saver, { schema: "trellis" });
 * await usageOf?.("user:ana"); // { items: 12, bytes: 3400 }
 */
export function storeUsageOf(
  saver: CheckpointSaver,
  options: { schema?: string | undefined } = {},
): StoreUsageReader | undefined {
  if (saver instanceof SqliteSaver) {
    const statement = saver.database.prepare(
      `SELECT COUNT(*) AS items, COALESCE(SUM(length(CAST(value AS BLOB))), 0) AS bytes FROM store_items
       WHERE ${UNDER_SQLITE} AND (expires_at IS NULL OR expires_at > @now)`,
    );
    return async (label) => {
      const row = statement.get({ label, now: Date.now() }) as { items: number; bytes: number };
      return { items: Number(row.items), bytes: Number(row.bytes) };
    };
  }
  const pool = (saver as { pool?: pg.Pool }).pool;
  if (!pool) return undefined;
  const table = `${quotedSchema(options.schema ?? "trellis")}.store_items`;
  return async (label) => {
    const { rows } = await pool.query(
      `SELECT COUNT(*) AS items, COALESCE(SUM(octet_length(value)), 0) AS bytes FROM ${table}
       WHERE (ns = $1 OR (ns >= $1 || '.' AND ns < $1 || '/')) AND (expires_at IS NULL OR expires_at > $2)`,
      [label, Date.now()],
    );
    return { items: Number(rows[0]?.items ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
  };
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null));

/**
 * The server's item store with the per-user store limits (`limits.storeItemsPerUser`,
 * `storeBytesPerUser`) on every put under a user's label (`user:<id>`: what the Store API and `ctx.store`
 * write with auth on): a new item past the count, or a value that takes the user past the bytes, is a 429
 * naming the limit, and nothing is written. Puts outside user labels (an application's own) pass.
 * `inner` is the store it limits (what the server's own sweeps and a test's counters reach).
 *
 * @example
 * const limited = limitStoreByUser(itemStore, storeUsageOf(saver), config.limits);
 * await storeFor(limited, "ana").put(["notes"], "n1", { text: "tea" }); // 429 past ana's limits
 */
export function limitStoreByUser(
  store: Store,
  usageOf: StoreUsageReader | undefined,
  limits: Pick<ResolvedConfig["limits"], "storeItemsPerUser" | "storeBytesPerUser">,
): Store & { readonly inner?: Store } {
  if (!usageOf) return store;
  const put: Store["put"] = async (namespace, key, value, options) => {
    const label = namespace[0];
    if (label?.startsWith("user:")) {
      const [usage, existing] = await Promise.all([usageOf(label), store.get(namespace, key)]);
      if (!existing && usage.items + 1 > limits.storeItemsPerUser) {
        throw tooMany(
          "storeItemsPerUser",
          limits.storeItemsPerUser,
          usage.items,
          "delete items you no longer need (or put with a ttl), then try again.",
        );
      }
      const after = usage.bytes - (existing ? bytesOf(existing.value) : 0) + bytesOf(value);
      if (after > limits.storeBytesPerUser) {
        throw tooMany(
          "storeBytesPerUser",
          limits.storeBytesPerUser,
          usage.bytes,
          `this value would take you to ${after}. Delete or shrink items, then try again.`,
        );
      }
    }
    return store.put(namespace, key, value, options);
  };
  return {
    inner: store,
    get: (namespace, key, options) => store.get(namespace, key, options),
    put,
    delete: (namespace, key) => store.delete(namespace, key),
    search: (prefix, options) => store.search(prefix, options),
    listNamespaces: (options) => store.listNamespaces(options),
    sweepExpired: () => store.sweepExpired(),
    ...(store.close ? { close: () => store.close?.() ?? Promise.resolve() } : {}),
  };
}
