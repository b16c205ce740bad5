import type { SqlDatabase } from "../database/sql-database.js";
import type { CompanyDataset } from "./company-dataset.js";

/**
 * The company graph as tables: companies are nodes, `ownership` rows are weighted edges, sectors form
 * a tree. The same DDL runs on SQLite and PostgreSQL. @internal
 */
export const COMPANY_SCHEMA_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS dataset_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS sectors (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     parent_id TEXT REFERENCES sectors(id)
   )`,
  `CREATE TABLE IF NOT EXISTS sector_aliases (
     sector_id TEXT NOT NULL REFERENCES sectors(id),
     alias TEXT NOT NULL,
     PRIMARY KEY (sector_id, alias)
   )`,
  `CREATE TABLE IF NOT EXISTS companies (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     sector_id TEXT NOT NULL REFERENCES sectors(id),
     listed INTEGER NOT NULL,
     market_cap DOUBLE PRECISION,
     description TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS company_aliases (
     company_id TEXT NOT NULL REFERENCES companies(id),
     alias TEXT NOT NULL,
     PRIMARY KEY (company_id, alias)
   )`,
  `CREATE TABLE IF NOT EXISTS ownership (
     parent_id TEXT NOT NULL REFERENCES companies(id),
     child_id TEXT NOT NULL REFERENCES companies(id),
     percentage DOUBLE PRECISION NOT NULL CHECK (percentage > 0 AND percentage <= 100),
     PRIMARY KEY (parent_id, child_id)
   )`,
  `CREATE INDEX IF NOT EXISTS ownership_child ON ownership (child_id)`,
  `CREATE TABLE IF NOT EXISTS financials (
     company_id TEXT NOT NULL REFERENCES companies(id),
     fiscal_year INTEGER NOT NULL,
     revenue DOUBLE PRECISION NOT NULL,
     net_profit DOUBLE PRECISION NOT NULL,
     total_assets DOUBLE PRECISION NOT NULL,
     roe DOUBLE PRECISION NOT NULL,
     pe_ratio DOUBLE PRECISION NOT NULL,
     dividend_yield DOUBLE PRECISION NOT NULL,
     PRIMARY KEY (company_id, fiscal_year)
   )`,
];

/** Key of the PostgreSQL advisory lock held while installing. */
const INSTALL_LOCK = 0x4d41_4347; // "MACG"

/** Options of {@link installCompanyGraph}. */
export interface InstallOptions {
  /** Delete what the tables hold and load `dataset` again. Default: load only into empty tables. */
  replace?: boolean;
}

/**
 * Creates the company-graph tables when missing and loads `dataset` into them when they are empty (or
 * always, with `replace`), in one transaction. Returns whether it loaded anything.
 *
 * @example
 * const db = openSqliteDatabase(":memory:");
 * await installCompanyGraph(db, SAMPLE_DATASET); // true
 * await installCompanyGraph(db, SAMPLE_DATASET); // false: already there
 */
export async function installCompanyGraph(
  db: SqlDatabase,
  dataset: CompanyDataset,
  options: InstallOptions = {},
): Promise<boolean> {
  return db.transaction(async (tx) => {
    // Two processes starting at once (server and CLI) must not both create and load the tables.
    if (tx.dialect === "postgres") await tx.query("SELECT pg_advisory_xact_lock(?)", [INSTALL_LOCK]);
    for (const statement of COMPANY_SCHEMA_DDL) await tx.query(statement);
    const [row] = await tx.query<{ n: number }>("SELECT CAST(COUNT(*) AS INTEGER) AS n FROM companies");
    if ((row?.n ?? 0) > 0 && !options.replace) return false;
    for (const table of ["financials", "ownership", "company_aliases", "companies", "sector_aliases", "sectors"]) {
      await tx.query(`DELETE FROM ${table}`);
    }
    await tx.query("DELETE FROM dataset_info");
    await tx.query("INSERT INTO dataset_info (key, value) VALUES (?, ?), (?, ?)", [
      "notice",
      dataset.notice,
      "currency",
      dataset.currency,
    ]);
    // Parents before children, so the sector tree's foreign key holds while loading.
    for (const s of sortSectors(dataset)) {
      await tx.query("INSERT INTO sectors (id, name, parent_id) VALUES (?, ?, ?)", [s.id, s.name, s.parentId]);
      for (const alias of new Set([s.name.toLowerCase(), ...s.aliases.map((a) => a.toLowerCase())])) {
        await tx.query("INSERT INTO sector_aliases (sector_id, alias) VALUES (?, ?)", [s.id, alias]);
      }
    }
    for (const c of dataset.companies) {
      await tx.query(
        "INSERT INTO companies (id, name, sector_id, listed, market_cap, description) VALUES (?, ?, ?, ?, ?, ?)",
        [c.id, c.name, c.sectorId, c.listed ? 1 : 0, c.marketCap, c.description],
      );
      for (const alias of new Set(c.aliases)) {
        await tx.query("INSERT INTO company_aliases (company_id, alias) VALUES (?, ?)", [c.id, alias]);
      }
    }
    for (const o of dataset.ownership) {
      await tx.query("INSERT INTO ownership (parent_id, child_id, percentage) VALUES (?, ?, ?)", [
        o.parentId,
        o.childId,
        o.percentage,
      ]);
    }
    for (const f of dataset.financials) {
      await tx.query(
        `INSERT INTO financials (company_id, fiscal_year, revenue, net_profit, total_assets, roe, pe_ratio, dividend_yield)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [f.companyId, f.fiscalYear, f.revenue, f.netProfit, f.totalAssets, f.roe, f.peRatio, f.dividendYield],
      );
    }
    return true;
  });
}

function sortSectors(dataset: CompanyDataset): CompanyDataset["sectors"] {
  const out: CompanyDataset["sectors"][number][] = [];
  const placed = new Set<string>();
  let pending = [...dataset.sectors];
  while (pending.length > 0) {
    const ready = pending.filter((s) => s.parentId === null || placed.has(s.parentId));
    if (ready.length === 0) throw new Error(`Sector tree has a cycle or a missing parent: ${pending[0]?.id}`);
    for (const s of ready) {
      out.push(s);
      placed.add(s.id);
    }
    pending = pending.filter((s) => !placed.has(s.id));
  }
  return out;
}
