import { encodeBlobs, encodeCheckpoint, encodeWrites, jsonSerializer, TrellisError } from "@trellis/checkpoint";
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
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
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
    expect(await saver.setup()).toBe(POSTGRES_SCHEMA_VERSION);
    expect((await saver.get({ threadId: "legacy" }))?.values).toEqual({ messages: ["hi"] });
    expect((await pool.query(index, [schema])).rows).toHaveLength(1);
    await saver.close();
    expect(pool.ended).toBe(false);
    await pool.end();
  });

  it("migrates a version 2 schema with long values stored inline: they read as before, and new puts share them", async () => {
    const schema = fresh();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL });
    expect(await migratePostgres(pool, schema, { to: 2 })).toBe(2);
    const long = { doc: "long value ".repeat(400) };
    const request = stepRequest({
      threadId: "legacy",
      id: "0001",
      full: { doc: long },
      writes: [{ taskId: "t", channel: "doc", value: long }],
    });
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
    for (const w of encodeWrites(jsonSerializer, request.writes ?? [])) {
      await pool.query(`INSERT INTO "${schema}".writes VALUES ('legacy', '', '0001', $1, $2, 1, $3, $4)`, [
        w.taskId,
        w.channel,
        w.body,
        w.sum,
      ]);
    }

    const saver = new PostgresSaver({ pool, schema });
    expect(await saver.setup()).toBe(POSTGRES_SCHEMA_VERSION);
    const before = await saver.storedBytes("legacy");
    expect(await saver.get({ threadId: "legacy" })).toMatchObject({
      values: { doc: long },
      pendingWrites: [{ taskId: "t", channel: "doc", value: long }],
    });
    const next = stepRequest({
      threadId: "legacy",
      id: "0002",
      parent: request.checkpoint,
      full: { doc: long, copy: long },
    });
    await saver.put(next);
    expect(await saver.storedBytes("legacy")).toBeLessThan(before + JSON.stringify(long).length * 1.5);
    expect((await saver.get({ threadId: "legacy" }))?.values).toEqual({ doc: long, copy: long });
    expect((await saver.get({ threadId: "legacy", checkpointId: "0001" }))?.values).toEqual({ doc: long });
    await saver.close();
    await pool.end();
  });

  it("lets several processes set up the same new schema at once", async () => {
    const schema = fresh();
    const savers = Array.from({ length: 4 }, () => new PostgresSaver({ connectionString: POSTGRES_URL, schema }));
    expect(await Promise.all(savers.map((s) => s.setup()))).toEqual(Array(4).fill(POSTGRES_SCHEMA_VERSION));
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
