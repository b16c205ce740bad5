/** The cron scheduler between users on Postgres (the case of `cron-fairness-cases.ts`, a schema of its own). */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { afterAll, describe } from "vitest";
import { cronTurnsCase } from "./cron-fairness-cases.js";

const postgres = await requirePostgres();
const schema = testSchema("cronfair");
afterAll(async () => {
  if (postgres) await dropSchema(schema);
});

describe.skipIf(!postgres)("Postgres", () => {
  cronTurnsCase("Postgres", { kind: "postgres", url: POSTGRES_URL, schema });
});
