/**
 * Crons on Postgres, through the official SDK `Client`: the shared cases, with the racing scheduler in a
 * second server on the same schema; only processes that execute runs schedule.
 */
import { ManualClock } from "@trellis/checkpoint";
import { dropSchema, POSTGRES_URL, requirePostgres, testSchema } from "@trellis/checkpoint-postgres/testing";
import { describe, expect, it } from "vitest";
import { createServer } from "../server.js";
import { at, type CronBackend, cronCases, cronServer } from "./cron-cases.js";
import { PACKAGE_DIR, TEST_GRAPHS } from "./harness.js";

const postgres = await requirePostgres();
const schema = testSchema("crons");

const backend: CronBackend = {
  label: "Postgres",
  saver: { kind: "postgres", url: POSTGRES_URL, schema },
  async secondScheduler(_server, clock) {
    // a second server process on the same schema, with its own pool and its own scheduler
    const other = await cronServer(backend, clock);
    return { scheduler: other.server.crons, close: () => other.server.close() };
  },
  async dispose() {
    if (postgres) await dropSchema(schema);
  },
};

describe.skipIf(!postgres)("Postgres", () => {
  cronCases(backend);

  it("an API-only process keeps crons but leaves the ticks to processes that execute runs", async () => {
    const config = { graphs: TEST_GRAPHS, saver: backend.saver, baseDir: PACKAGE_DIR };
    const clock = new ManualClock(at("10:00:30"));
    const api = await createServer(config, { env: {}, workers: 0, crons: { clock, pollMs: 1e12 } });
    const worker = await createServer(config, { env: {}, workers: 1, crons: { clock, pollMs: 1e12 } });
    try {
      expect(api.crons.running).toBe(false);
      expect(worker.crons.running).toBe(true);
    } finally {
      await api.close();
      await worker.close();
    }
  });
});
