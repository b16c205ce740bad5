import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type pg from "pg";
import type { CronStore } from "./cron-store.js";
import { PostgresCronStore } from "./postgres/postgres-cron-store.js";
import { SqliteCronStore } from "./sqlite/sqlite-cron-store.js";

/**
 * The cron store beside the server's saver: a table in its SQLite file, or in its Postgres schema
 * (through the saver's pool). Other savers have nowhere to keep crons.
 *
 * @example
 * const crons = await openCronStore(saver, { schema: "trellis" });
 */
export async function openCronStore(
  saver: CheckpointSaver,
  options: { schema?: string | undefined } = {},
): Promise<CronStore> {
  if (saver instanceof SqliteSaver) return new SqliteCronStore(saver.database);
  // a PostgresSaver, recognised by its pool so that a SQLite project never loads pg
  const pool = (saver as { pool?: pg.Pool }).pool;
  if (pool) {
    const store = new PostgresCronStore({ pool, schema: options.schema });
    await store.setup();
    return store;
  }
  throw new TrellisError("INVALID_CONFIG", "Crons need the server's SQLite or Postgres saver.");
}
