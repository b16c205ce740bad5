import { randomBytes } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import pg from "pg";

// Test helpers for anything that needs a real PostgreSQL: the saver's own tests, the end-to-end and
// reliability suites, the apps. Exported as `@trellis/checkpoint-postgres/testing`.

/**
 * Where tests find PostgreSQL: `TRELLIS_POSTGRES_URL`, else the local server (trust auth, database `test`).
 *
 * @example
 * const pool = new pg.Pool({ connectionString: POSTGRES_URL });
 */
export const POSTGRES_URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Resolves true when PostgreSQL answers; under CI a missing server fails the run (see requireService).
 * Part of the `./testing` export: other packages' tests and the reliability suite use it.
 *
 * @example
 * it.runIf(await requirePostgres())("stores a checkpoint", async () => { await check(); });
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

/**
 * A schema name of its own for one test run, so runs never share tables.
 *
 * @example
 * const schema = testSchema("e2e"); // trellis_e2e_1a2b3c4d5e
 */
export function testSchema(label = "test"): string {
  return `trellis_${label}_${randomBytes(5).toString("hex")}`;
}

/**
 * Drops a test schema and everything in it.
 *
 * @example
 * afterAll(() => dropSchema(schema));
 */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
