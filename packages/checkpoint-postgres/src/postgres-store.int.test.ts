import { describeStoreConformance } from "@trellis/checkpoint/testing";
import { afterAll } from "vitest";
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
