import { TrellisError } from "@trellis/checkpoint";
import type { Pool, PoolClient } from "pg";

/** One numbered schema change. `sql` receives the quoted schema name. */
export interface PostgresMigration {
  version: number;
  name: string;
  sql(schema: string): string;
}

/**
 * The schema, as numbered migrations. Never edit a shipped migration: add the next number. Key columns
 * use the "C" collation so ids sort by code point, as they do in JavaScript.
 * @internal
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "threads, checkpoints, blobs, writes",
    sql: (s) => `
      CREATE TABLE ${s}.threads (
        thread_id        text COLLATE "C" PRIMARY KEY,
        ttl_ms           bigint,
        touched_at       bigint NOT NULL,
        lease_owner      text,
        lease_epoch      bigint NOT NULL DEFAULT 0,
        lease_expires_at bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE ${s}.checkpoints (
        thread_id text COLLATE "C" NOT NULL,
        ns        text COLLATE "C" NOT NULL,
        id        text COLLATE "C" NOT NULL,
        body      text NOT NULL,
        sum       text NOT NULL,
        PRIMARY KEY (thread_id, ns, id)
      );
      CREATE TABLE ${s}.blobs (
        thread_id text COLLATE "C" NOT NULL,
        ns        text COLLATE "C" NOT NULL,
        channel   text COLLATE "C" NOT NULL,
        version   text COLLATE "C" NOT NULL,
        kind      text NOT NULL CHECK (kind IN ('full', 'delta')),
        base      text COLLATE "C",
        body      text NOT NULL,
        sum       text NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
      );
      CREATE TABLE ${s}.writes (
        thread_id     text COLLATE "C" NOT NULL,
        ns            text COLLATE "C" NOT NULL,
        checkpoint_id text COLLATE "C" NOT NULL,
        task_id       text COLLATE "C" NOT NULL,
        channel       text COLLATE "C" NOT NULL,
        seq           bigint NOT NULL,
        body          text NOT NULL,
        sum           text NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, channel)
      );`,
  },
  {
    version: 2,
    name: "index threads by expiry for sweepExpired",
    sql: (s) => `CREATE INDEX threads_expiry ON ${s}.threads ((touched_at + ttl_ms)) WHERE ttl_ms IS NOT NULL;`,
  },
  {
    version: 3,
    name: "long values stored once per thread, by content key",
    // Rows written before keep their body inline (ref NULL) and read as before.
    sql: (s) => `
      CREATE TABLE ${s}.bodies (
        thread_id text COLLATE "C" NOT NULL,
        ref       text COLLATE "C" NOT NULL,
        body      text NOT NULL,
        PRIMARY KEY (thread_id, ref)
      );
      ALTER TABLE ${s}.blobs ADD COLUMN ref text COLLATE "C";
      ALTER TABLE ${s}.writes ADD COLUMN ref text COLLATE "C";`,
  },
];

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/**
 * Quotes a schema name for SQL after checking it is a plain identifier.
 * @internal
 */
export function quoteSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TrellisError(
      "INVALID_CONFIG",
      `Schema name "${schema}" is not a plain identifier: use letters, digits and underscores (at most 63).`,
      { details: { schema } },
    );
  }
  return `"${schema}"`;
}

/**
 * Brings `schema` to version `to` (default: the latest), creating the schema if needed. Several
 * processes may run it at once: a transaction-scoped advisory lock serialises them. Refuses a schema
 * written by a newer version of this package. Returns the version the schema is at.
 * @internal
 */
export async function migratePostgres(pool: Pool, schema: string, options: { to?: number } = {}): Promise<number> {
  const target = options.to ?? POSTGRES_SCHEMA_VERSION;
  const s = quoteSchema(schema);
  const client = await pool.connect();
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`trellis-migrations:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.trellis_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const current = await currentVersion(client, s);
    if (current > POSTGRES_SCHEMA_VERSION) {
      throw new TrellisError(
        "MIGRATION",
        `Schema ${schema} is at checkpoint schema version ${current}, newer than this @trellis/checkpoint-postgres knows (${POSTGRES_SCHEMA_VERSION}). Upgrade the package.`,
        { details: { schema, current, known: POSTGRES_SCHEMA_VERSION } },
      );
    }
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= current || migration.version > target) continue;
      try {
        await client.query(migration.sql(s));
      } catch (cause) {
        throw new TrellisError(
          "MIGRATION",
          `Postgres checkpoint migration ${migration.version} (${migration.name}) failed in schema ${schema}: ${(cause as Error).message}. The schema was left at version ${current}.`,
          { details: { schema, version: migration.version }, cause },
        );
      }
      await client.query(`INSERT INTO ${s}.trellis_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
    }
    await client.query("COMMIT");
    return Math.max(current, Math.min(target, POSTGRES_SCHEMA_VERSION));
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

async function currentVersion(client: PoolClient, s: string): Promise<number> {
  const { rows } = await client.query<{ v: number | null }>(`SELECT MAX(version) AS v FROM ${s}.trellis_migrations`);
  return rows[0]?.v ?? 0;
}
