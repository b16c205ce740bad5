import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqlDatabase } from "../database/sql-database.js";
import { openSqliteDatabase } from "../database/sqlite-database.js";
import { companyGraphCases } from "../test/company-graph-cases.js";
import { SAMPLE_DATASET } from "./company-dataset.js";
import { CompanyGraph } from "./company-graph.js";
import { installCompanyGraph } from "./company-schema.js";

describe("CompanyGraph on SQLite", () => {
  let db: SqlDatabase;
  let graph: CompanyGraph;
  beforeAll(async () => {
    db = openSqliteDatabase(":memory:");
    await installCompanyGraph(db, SAMPLE_DATASET);
    graph = new CompanyGraph(db);
  });
  afterAll(() => db.close());

  companyGraphCases(() => graph);

  it("loads the dataset once, and again only when asked to replace it", async () => {
    expect(await installCompanyGraph(db, SAMPLE_DATASET)).toBe(false);
    expect(await installCompanyGraph(db, SAMPLE_DATASET, { replace: true })).toBe(true);
    const [row] = await db.query<{ n: number }>("SELECT CAST(COUNT(*) AS INTEGER) AS n FROM companies");
    expect(row?.n).toBe(SAMPLE_DATASET.companies.length);
  });

  it("does not loop on an ownership cycle", async () => {
    const cyclic = openSqliteDatabase(":memory:");
    await installCompanyGraph(cyclic, {
      ...SAMPLE_DATASET,
      ownership: [...SAMPLE_DATASET.ownership, { parentId: "JMSL", childId: "JKH", percentage: 1 }],
    });
    const links = await new CompanyGraph(cyclic).holdings("JKH");
    expect(links.some((l) => l.company.id === "JKH")).toBe(false);
    expect(links).toHaveLength(8);
    await cyclic.close();
  });
});
