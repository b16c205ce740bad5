import { encodeBlobs, encodeCheckpoint, jsonSerializer, TrellisError } from "@trellis/checkpoint";
import { stepRequest } from "@trellis/checkpoint/testing";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migratePostgres, POSTGRES_SCHEMA_VERSION } from "./postgres-migrations.js";
import { PostgresSaver } from "./postgres-saver.js";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "./postgres-test-helpers.js";

const available = await requirePostgres();
const schemas: string[] = [];
const fresh = () => {
  const schema = testSchema("mig");
  schemas.push(schema);
  return schema;
};

afterAll(async () => {
  if (available) for (const schema of schemas) await dropSchema(schema);
});

describe.skipIf(!available)("PostgresSaver migrations", () => {
  it("creates the schema and the latest tables on first use, recording each migration", async () => {
    const schema = fresh();
    const saver = new PostgresSaver({ connectionString: POSTGRES_URL, schema });
    expect(await saver.setup()).toBe(POSTGRES_SCHEMA_VERSION);
    const { rows } = await saver.pool.query(`SELECT version FROM "${schema}".trellis_migrations ORDER BY version`);
    expect(rows).toEqual([{ version: 1 }, { version: 2 }]);
    await saver.close();
  });

  it("migrates a schema written at version 1 and keeps its threads", async () => {
    const schema = fresh();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL });
    expect(await migratePostgres(pool, schema, { to: 1 })).toBe(1);
    const request = stepRequest({ threadId: "legacy", id: "0001", full: { messages: ["hi"] } });
    const cp = encodeCheckpoint(jsonSerializer, request.checkpoint);
    await pool.query(`INSERT INTO "${schema}".threads (thread_id, ttl_ms, touched_at) VALUES ('legacy', NULL, 0)`);
    await pool.query(`INSERT INTO "${schema}".checkpoints VALUES ('legacy', '', '0001', $1, $2)`, [cp.body, cp.sum]);
    for (const b of encodeBlobs(jsonSerializer, request.blobs)) {
      await pool.query(`INSERT INTO "${schema}".blobs VALUES ('legacy', '', $1, $2, $3, $4, $5, $6)`, [
        b.channel,
        b.version,
        b.kind,
        b.base,
        b.body,
        b.sum,
      ]);
    }
    const index = `SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'threads_expiry'`;
    expect((await pool.query(index, [schema])).rows).toEqual([]);

    const saver = new PostgresSaver({ pool, schema });
    expect(await saver.setup()).toBe(2);
    expect((await saver.get({ threadId: "legacy" }))?.values).toEqual({ messages: ["hi"] });
    expect((await pool.query(index, [schema])).rows).toHaveLength(1);
    await saver.close();
    expect(pool.ended).toBe(false);
    await pool.end();
  });

  it("lets several processes set up the same new schema at once", async () => {
    const schema = fresh();
    const savers = Array.from({ length: 4 }, () => new PostgresSaver({ connectionString: POSTGRES_URL, schema }));
    expect(await Promise.all(savers.map((s) => s.setup()))).toEqual([2, 2, 2, 2]);
    for (const saver of savers) await saver.close();
  });

  it("refuses a schema written by a newer version, and a schema name that is not an identifier", async () => {
    const schema = fresh();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL });
    await migratePostgres(pool, schema);
    await pool.query(`INSERT INTO "${schema}".trellis_migrations (version, name) VALUES (99, 'future')`);
    const saver = new PostgresSaver({ pool, schema });
    const error = await saver.get({ threadId: "x" }).catch((e) => e);
    expect(error).toBeInstanceOf(TrellisError);
    expect(error.code).toBe("MIGRATION");
    await pool.end();
    expect(() => new PostgresSaver({ schema: 'bad"; DROP TABLE x; --' })).toThrow(/not a plain identifier/);
  });
});
