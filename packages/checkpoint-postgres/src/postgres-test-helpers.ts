import { randomBytes } from "node:crypto";
import type { CorruptionTarget } from "@trellis/checkpoint/testing";
import { requireService } from "@trellis/checkpoint/testing";
import pg from "pg";

/** Where the integration tests find PostgreSQL. @internal */
export const POSTGRES_URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Resolves true when PostgreSQL answers; under CI a missing server fails the run (see requireService).
 * @internal
 */
export function requirePostgres(): Promise<boolean> {
  return requireService(
    "PostgreSQL",
    async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
      await client.connect();
      try {
        await client.query("SELECT 1");
      } finally {
        await client.end();
      }
    },
    {
      hint: `start it on 127.0.0.1:5432 (trust auth, database test) or set TRELLIS_POSTGRES_URL (now ${POSTGRES_URL})`,
    },
  );
}

/** A schema name of its own for one test run. @internal */
export function testSchema(label = "test"): string {
  return `trellis_${label}_${randomBytes(5).toString("hex")}`;
}

/** Drops a test schema and everything in it. @internal */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

const ROWS = {
  checkpoint: { table: "checkpoints", column: "id" },
  blob: { table: "blobs", column: "version" },
  write: { table: "writes", column: "checkpoint_id" },
} as const;

/** Changes one letter of a stored row's body behind the saver's back, keeping its checksum. @internal */
export async function corruptPostgresRow(pool: pg.Pool, schema: string, target: CorruptionTarget): Promise<void> {
  const { table, column } = ROWS[target.row];
  const { rows } = await pool.query<{ ctid: string; body: string }>(
    `SELECT ctid::text, body FROM "${schema}".${table} WHERE thread_id = $1 AND ns = $2 AND ${column} = $3 LIMIT 1`,
    [target.threadId, target.namespace, target.checkpointId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no ${target.row} row to corrupt for checkpoint ${target.checkpointId}`);
  await pool.query(`UPDATE "${schema}".${table} SET body = $1 WHERE ctid = $2::tid`, [
    flipOneLetter(row.body),
    row.ctid,
  ]);
}

function flipOneLetter(text: string): string {
  const start = Math.floor(text.length / 2);
  for (let k = 0; k < text.length; k++) {
    const i = (start + k) % text.length;
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) return text.slice(0, i) + String.fromCharCode(c === 122 ? 97 : c + 1) + text.slice(i + 1);
  }
  return `${text} `;
}
