import { TrellisError } from "@trellis/checkpoint";
import type pg from "pg";

/** One numbered migration; `S.` in its SQL stands for the quoted schema. Never edit a shipped one. */
export interface PostgresMigration {
  version: number;
  sql: string;
}

/**
 * The quoted schema name for SQL, after checking it is a plain identifier (it is spliced into queries).
 *
 * @example
 * const s = quotedSchema(options.schema ?? "trellis"); // "\"trellis\""
 */
export function quotedSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema))
    throw new TrellisError("INVALID_CONFIG", `Bad schema name "${schema}".`);
  return `"${schema}"`;
}

/**
 * Applies the migrations a store's tracking table (`table`, in schema `s`) has not seen yet, inside the
 * caller's transaction and under the advisory lock `lock`, so processes starting at once migrate once.
 * Each store keeps its own table and lock: their versions are independent.
 *
 * @example
 * await migratePostgres(client, '"trellis"', "server_migrations", 74_120_001, MIGRATIONS);
 */
export async function migratePostgres(
  c: pg.ClientBase,
  s: string,
  table: string,
  lock: number,
  migrations: ReadonlyArray<PostgresMigration>,
): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock($1)", [lock]);
  await c.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  await c.query(`CREATE TABLE IF NOT EXISTS ${s}.${table} (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const { rows } = await c.query(`SELECT COALESCE(MAX(version), 0) AS v FROM ${s}.${table}`);
  const current = Number(rows[0]?.v ?? 0);
  for (const m of migrations) {
    if (m.version <= current) continue;
    await c.query(m.sql.replaceAll("S.", `${s}.`));
    await c.query(`INSERT INTO ${s}.${table} (version, applied_at) VALUES ($1, $2)`, [
      m.version,
      new Date().toISOString(),
    ]);
  }
}
