import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describeStoreApi } from "./store-cases.js";

const available = await requirePostgres();
const schema = testSchema("store_api");

describeStoreApi({
  label: "Postgres",
  skip: !available,
  saver: { kind: "postgres", url: POSTGRES_URL, schema },
  dispose: async () => {
    if (available) await dropSchema(schema);
  },
});
