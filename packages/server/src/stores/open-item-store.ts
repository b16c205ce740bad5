import { type CheckpointSaver, type ItemStoreOptions, type Store, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver, SqliteStore } from "@trellis/checkpoint-sqlite";
import type pg from "pg";

/**
 * The long-term memory store beside the server's saver (the Store API's, and `ctx.store` of the graphs
 * it runs): the `store_items` table in its SQLite file, or in its Postgres schema through the saver's
 * pool, so every API process and worker of a scale-out deployment shares it.
 *
 * @example
 * const store = await openItemStore(saver, { schema: "trellis", ttl: { sweepIntervalMinutes: 60 } });
 */
export async function openItemStore(
  saver: CheckpointSaver,
  options: ItemStoreOptions & { schema?: string | undefined } = {},
): Promise<Store> {
  const { schema, ...storeOptions } = options;
  if (saver instanceof SqliteSaver) return new SqliteStore({ database: saver.database, ...storeOptions });
  // a PostgresSaver, recognised by its pool so that a SQLite project never loads pg
  const pool = (saver as { pool?: pg.Pool }).pool;
  if (pool) {
    const { PostgresStore } = await import("@trellis/checkpoint-postgres");
    const store = new PostgresStore({ pool, ...(schema ? { schema } : {}), ...storeOptions });
    await store.setup();
    return store;
  }
  throw new TrellisError("INVALID_CONFIG", "The Store API needs the server's SQLite or Postgres saver.");
}
