/** Per-user limits on Postgres (the cases of `user-limits-cases.ts`, a schema of this run's own). */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { afterAll, describe } from "vitest";
import { userLimitCases } from "./user-limits-cases.js";

const postgres = await requirePostgres();
const schema = testSchema("limits");
afterAll(async () => {
  if (postgres) await dropSchema(schema);
});

describe.skipIf(!postgres)("Postgres", () => {
  userLimitCases("Postgres", { kind: "postgres", url: POSTGRES_URL, schema });
});
