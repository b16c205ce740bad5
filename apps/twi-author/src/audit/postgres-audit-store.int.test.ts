import { randomBytes } from "node:crypto";
import { requireService } from "@trellis/checkpoint/testing";
import { ManualClock } from "@trellis/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ENTRY } from "../test/audit-entry.js";
import { PostgresAuditStore } from "./postgres-audit-store.js";

const URL = process.env.TRELLIS_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const available = await requireService(
  "PostgreSQL",
  async () => {
    const client = new pg.Client({ connectionString: URL, connectionTimeoutMillis: 2_000 });
    await client.connect();
    await client.end();
  },
  { hint: `set TRELLIS_POSTGRES_URL (now ${URL})` },
);

describe.skipIf(!available)("PostgresAuditStore", () => {
  it("creates audit_log in its schema and writes one row per conversation with every field", async () => {
    const schema = `twi_${randomBytes(4).toString("hex")}`;
    const store = new PostgresAuditStore({ url: URL, schema, clock: new ManualClock(Date.UTC(2025, 2, 1, 10)) });
    try {
      await store.record(ENTRY);
      await store.record({ ...ENTRY, status: "completed", revision_count: 3 });
      expect(await store.get("conv-1")).toEqual({
        ...ENTRY,
        revision_count: 3,
        created_at: "2025-03-01T10:00:00.000Z",
      });
      expect(await store.list()).toHaveLength(1);
    } finally {
      const pool = new pg.Pool({ connectionString: URL });
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await pool.end();
      await store.close();
    }
  });
});
