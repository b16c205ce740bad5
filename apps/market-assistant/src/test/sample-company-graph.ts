import { SAMPLE_DATASET } from "../companies/company-dataset.js";
import { CompanyGraph } from "../companies/company-graph.js";
import { installCompanyGraph } from "../companies/company-schema.js";
import type { SqlDatabase } from "../database/sql-database.js";
import { openSqliteDatabase } from "../database/sqlite-database.js";

/** An in-memory SQLite database holding the sample dataset, and the graph over it. @internal */
export async function sampleCompanyGraph(): Promise<{ db: SqlDatabase; companies: CompanyGraph }> {
  const db = openSqliteDatabase(":memory:");
  await installCompanyGraph(db, SAMPLE_DATASET);
  return { db, companies: new CompanyGraph(db) };
}
