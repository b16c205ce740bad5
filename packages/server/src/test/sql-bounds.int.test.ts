import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describeSqlBounds } from "./sql-bounds-cases.js";

const available = await requirePostgres();
const schema = testSchema("sql_bounds");

describeSqlBounds({
  label: "Postgres",
  skip: !available,
  saver: { kind: "postgres", url: POSTGRES_URL, schema },
  dispose: async () => {
    if (available) await dropSchema(schema);
  },
});
