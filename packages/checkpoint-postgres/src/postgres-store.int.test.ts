import { describeStoreConformance } from "@trellis/checkpoint/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "./postgres-store.js";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "./postgres-test-helpers.js";

const available = await requirePostgres();
const schema = testSchema("store");

afterAll(async () => {
  if (available) await dropSchema(schema);
});

describeStoreConformance({
  name: "PostgresStore",
  skip: !available,
  create: (options) =>
    new PostgresStore({ connectionString: POSTGRES_URL, schema, poolConfig: { max: 2 }, ...options }),
  // another pool: what one connection wrote, a second one reads
  reopen: (_store, { clock }) =>
    new PostgresStore({ connectionString: POSTGRES_URL, schema, poolConfig: { max: 1 }, clock }),
});

describe.skipIf(!available)("PostgresStore and an item stored with a NUL character before they were refused", () => {
  it("a filtered search over it is a CONFLICT saying what to do, not a database error", async () => {
    const store = new PostgresStore({ connectionString: POSTGRES_URL, schema, poolConfig: { max: 1 } });
    try {
      await store.put(["legacy"], "k", { a: 1 });
      await store.pool.query(`UPDATE "${schema}".store_items SET value = $1 WHERE ns = 'legacy' AND key = 'k'`, [
        '{"a":1,"note":"x\\u0000y"}',
      ]);
      expect((await store.search(["legacy"])).map((i) => i.key)).toEqual(["k"]);
      await expect(store.search(["legacy"], { filter: { a: 1 } })).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringMatching(/put that item again without it/),
      });
    } finally {
      await store.close();
    }
  });
});
