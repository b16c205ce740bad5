import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresDatabase } from "../database/postgres-database.js";
import type { SqlDatabase } from "../database/sql-database.js";
import { companyGraphCases } from "../test/company-graph-cases.js";
import { dropPostgresSchema, POSTGRES_URL, requirePostgres, uniqueName } from "../test/service-urls.js";
import { SAMPLE_DATASET } from "./company-dataset.js";
import { CompanyGraph } from "./company-graph.js";
import { installCompanyGraph } from "./company-schema.js";

const postgres = await requirePostgres();

describe.skipIf(!postgres)("CompanyGraph on PostgreSQL", () => {
  const schema = uniqueName("market_assistant_test");
  let db: SqlDatabase;
  let graph: CompanyGraph;
  beforeAll(async () => {
    db = await openPostgresDatabase({ url: POSTGRES_URL, schema });
    await installCompanyGraph(db, SAMPLE_DATASET);
    graph = new CompanyGraph(db);
  });
  afterAll(async () => {
    await db?.close();
    await dropPostgresSchema(schema);
  });

  companyGraphCases(() => graph);

  it("keeps the tables in the schema it was given", async () => {
    const rows = await db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name",
      [schema],
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      "companies",
      "company_aliases",
      "dataset_info",
      "financials",
      "ownership",
      "sector_aliases",
      "sectors",
    ]);
  });

  it("installs once when several processes start at the same time", async () => {
    const racing = uniqueName("market_assistant_race");
    const dbs = await Promise.all([1, 2, 3].map(() => openPostgresDatabase({ url: POSTGRES_URL, schema: racing })));
    try {
      const loaded = await Promise.all(dbs.map((d) => installCompanyGraph(d, SAMPLE_DATASET)));
      expect(loaded.filter(Boolean)).toHaveLength(1);
      expect((await new CompanyGraph(dbs[0] as SqlDatabase).rank({ metric: "market_cap", limit: 1 }))[0]?.id).toBe(
        "JKH",
      );
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
      await dropPostgresSchema(racing);
    }
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    await expect(openPostgresDatabase({ url: POSTGRES_URL, schema: 'x"; DROP TABLE y' })).rejects.toThrow(/identifier/);
  });
});
