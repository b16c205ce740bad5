import { describeSaverConformance } from "@trellis/checkpoint/testing";
import { afterAll } from "vitest";
import { PostgresSaver } from "./postgres-saver.js";
import { corruptPostgresRow, dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "./postgres-test-helpers.js";

const available = await requirePostgres();
const schema = testSchema();

afterAll(async () => {
  if (available) await dropSchema(schema);
});

describeSaverConformance({
  name: "PostgresSaver",
  skip: !available,
  create: ({ clock }) => new PostgresSaver({ connectionString: POSTGRES_URL, schema, clock, poolConfig: { max: 4 } }),
  // Another pool: the racing-writer tests contend on real row locks from separate connections.
  peer: (_saver, { clock }) =>
    new PostgresSaver({ connectionString: POSTGRES_URL, schema, clock, poolConfig: { max: 2 } }),
  corrupt: (saver, target) => corruptPostgresRow(saver.pool, schema, target),
});
