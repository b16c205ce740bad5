/**
 * The raw-socket fuzzer's "no valid JSON that reaches SQL gets a 5xx" against a door-child server on
 * Postgres (a schema of its own), where a NUL character or a 40k-parameter statement used to fail.
 */
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type ChildServer, startChildServer } from "./raw-socket.js";
import { expectNoServerError, sqlCase } from "./sql-fuzz-cases.js";

const available = await requirePostgres();
const schema = testSchema("door_sql");
const RUNS = Number(process.env.DOOR_FUZZ_RUNS ?? 250);
let s: ChildServer | undefined;

describe.skipIf(!available)("raw-socket fuzzer on Postgres", () => {
  beforeAll(async () => {
    s = await startChildServer({ saver: { kind: "postgres", url: POSTGRES_URL, schema } });
  });
  afterAll(async () => {
    await s?.stop();
    await dropSchema(schema);
  });

  it("no valid JSON that reaches SQL gets a 5xx", { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(sqlCase, async (c) => {
        await expectNoServerError(s as ChildServer, c);
      }),
      { numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
    );
  });
});
