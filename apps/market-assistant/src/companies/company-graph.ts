import type { SqlDatabase, SqlValue } from "../database/sql-database.js";

/** Figures a ranking can sort by. */
export type RankMetric =
  | "market_cap"
  | "revenue"
  | "net_profit"
  | "total_assets"
  | "roe"
  | "pe_ratio"
  | "dividend_yield";

/** Which end of a ranking: `desc` highest first, `asc` lowest first. */
export type RankOrder = "asc" | "desc";

/** Names the question parser matches: companies and sectors with their aliases. */
export interface CompanyDirectory {
  companies: readonly { id: string; name: string; listed: boolean; aliases: readonly string[] }[];
  sectors: readonly { id: string; name: string; parentId: string | null; aliases: readonly string[] }[];
  /** The dataset's notice (e.g. that it is sample data). */
  notice: string;
  currency: string;
}

/** A company with its sector and latest fiscal year's figures (`null` where unknown or unlisted). */
export interface CompanySummary {
  id: string;
  name: string;
  sectorId: string;
  sector: string;
  listed: boolean;
  marketCap: number | null;
  fiscalYear: number | null;
  revenue: number | null;
  netProfit: number | null;
  totalAssets: number | null;
  roe: number | null;
  peRatio: number | null;
  dividendYield: number | null;
}

/** A company reached through the ownership graph, directly (`depth` 1) or through others. */
export interface OwnershipLink {
  company: CompanySummary;
  depth: number;
  /** The stake held at this edge. */
  directPct: number;
  /** Product of the stakes along the path from the start company. */
  effectivePct: number;
  /** The company on the other end of this edge (the holder for holdings, the held for owners). */
  via: { id: string; name: string };
}

/** A company, where it ranks by market capitalisation, and its immediate neighbours in the graph. */
export interface CompanyProfile {
  company: CompanySummary & { description: string };
  /** 1-based rank by market capitalisation among listed companies; `null` when unlisted. */
  marketCapRank: number | null;
  listedCount: number;
  owners: OwnershipLink[];
  holdings: OwnershipLink[];
}

/** Totals and averages over a sector and its sub-sectors (listed companies with figures). */
export interface SectorMetrics {
  sector: { id: string; name: string };
  /** Names of the sectors the totals cover: the sector and every sector below it. */
  coveredSectors: string[];
  companies: CompanySummary[];
  totalMarketCap: number;
  totalRevenue: number;
  totalNetProfit: number;
  /** Net profit over revenue, %. */
  netMargin: number | null;
  avgRoe: number | null;
  avgPeRatio: number | null;
  avgDividendYield: number | null;
}

const METRIC_COLUMNS: Record<RankMetric, string> = {
  market_cap: "c.market_cap",
  revenue: "f.revenue",
  net_profit: "f.net_profit",
  total_assets: "f.total_assets",
  roe: "f.roe",
  pe_ratio: "f.pe_ratio",
  dividend_yield: "f.dividend_yield",
};

/** Deepest ownership chain the recursive queries follow. */
const MAX_DEPTH = 8;

const SUMMARY_COLUMNS = `c.id, c.name, c.sector_id, s.name AS sector, c.listed, c.market_cap, f.fiscal_year,
  f.revenue, f.net_profit, f.total_assets, f.roe, f.pe_ratio, f.dividend_yield`;

const SUMMARY_JOINS = `JOIN sectors s ON s.id = c.sector_id
  LEFT JOIN financials f ON f.company_id = c.id
    AND f.fiscal_year = (SELECT MAX(f2.fiscal_year) FROM financials f2 WHERE f2.company_id = c.id)`;

const SUMMARY_FROM = `companies c ${SUMMARY_JOINS}`;

/** The sector and all sectors below it, as the CTE `sector_tree(id)`. */
const SECTOR_TREE = `sector_tree(id) AS (
  SELECT id FROM sectors WHERE id = ?
  UNION ALL
  SELECT child.id FROM sectors child JOIN sector_tree t ON child.parent_id = t.id
)`;

interface SummaryRow {
  id: string;
  name: string;
  sector_id: string;
  sector: string;
  listed: number | boolean;
  market_cap: number | null;
  fiscal_year: number | null;
  revenue: number | null;
  net_profit: number | null;
  total_assets: number | null;
  roe: number | null;
  pe_ratio: number | null;
  dividend_yield: number | null;
}

interface LinkRow extends SummaryRow {
  depth: number;
  direct_pct: number;
  effective_pct: number;
  via_id: string;
  via_name: string;
}

/**
 * Questions over the company graph, answered with SQL on a {@link SqlDatabase}. Ownership chains and
 * sector trees are walked with `WITH RECURSIVE` queries, so indirect holdings (JKH → Ceylon Cold
 * Stores → JayKay Marketing) come back with their effective percentage.
 *
 * @example
 * const graph = new CompanyGraph(db);
 * const top = await graph.rank({ metric: "market_cap", limit: 5 });
 * const owned = await graph.holdings("JKH"); // direct and indirect, with effective stakes
 */
export class CompanyGraph {
  readonly #db: SqlDatabase;
  #directory: Promise<CompanyDirectory> | undefined;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  /** Company and sector names with their aliases, read once and cached. */
  directory(): Promise<CompanyDirectory> {
    this.#directory ??= this.#loadDirectory().catch((error: unknown) => {
      this.#directory = undefined;
      throw error;
    });
    return this.#directory;
  }

  /**
   * Listed companies with the highest `metric` (or the lowest, with `order: "asc"`), optionally within a
   * sector and its sub-sectors.
   */
  async rank(options: {
    metric: RankMetric;
    limit: number;
    order?: RankOrder;
    sectorId?: string;
  }): Promise<CompanySummary[]> {
    const column = METRIC_COLUMNS[options.metric];
    const params: SqlValue[] = [];
    let sql = `SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM} WHERE c.listed = 1 AND ${column} IS NOT NULL`;
    if (options.sectorId !== undefined) {
      sql = `WITH RECURSIVE ${SECTOR_TREE} ${sql} AND c.sector_id IN (SELECT id FROM sector_tree)`;
      params.push(options.sectorId);
    }
    sql += ` ORDER BY ${column} ${options.order === "asc" ? "ASC" : "DESC"}, c.id LIMIT ?`;
    params.push(Math.max(1, Math.min(50, Math.trunc(options.limit))));
    return (await this.#db.query<SummaryRow>(sql, params)).map(toSummary);
  }

  /**
   * Every company (listed or not) with its sector and latest figures, by id; with `sectorId`, only the
   * companies of that sector and the sectors below it. Filters, counts and sums over the data read this.
   */
  async companies(options: { sectorId?: string } = {}): Promise<CompanySummary[]> {
    if (options.sectorId === undefined) {
      return (await this.#db.query<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM} ORDER BY c.id`)).map(
        toSummary,
      );
    }
    const sql = `WITH RECURSIVE ${SECTOR_TREE} SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM}
      WHERE c.sector_id IN (SELECT id FROM sector_tree) ORDER BY c.id`;
    return (await this.#db.query<SummaryRow>(sql, [options.sectorId])).map(toSummary);
  }

  /** Everything `companyId` holds, directly and through its subsidiaries, nearest first. */
  async holdings(companyId: string): Promise<OwnershipLink[]> {
    const sql = `WITH RECURSIVE chain(company_id, via_id, depth, direct_pct, effective_pct, path) AS (
        SELECT o.child_id, o.parent_id, 1, o.percentage, o.percentage, '/' || o.parent_id || '/' || o.child_id || '/'
        FROM ownership o WHERE o.parent_id = ?
        UNION ALL
        SELECT o.child_id, o.parent_id, ch.depth + 1, o.percentage, ch.effective_pct * o.percentage / 100.0,
               ch.path || o.child_id || '/'
        FROM ownership o JOIN chain ch ON o.parent_id = ch.company_id
        WHERE ch.depth < ? AND ch.path NOT LIKE '%/' || o.child_id || '/%'
      )
      SELECT ${SUMMARY_COLUMNS}, ch.depth, ch.direct_pct, ch.effective_pct, ch.via_id, v.name AS via_name
      FROM chain ch JOIN companies c ON c.id = ch.company_id ${SUMMARY_JOINS} JOIN companies v ON v.id = ch.via_id
      ORDER BY ch.depth, ch.effective_pct DESC, c.name`;
    return (await this.#db.query<LinkRow>(sql, [companyId, MAX_DEPTH])).map(toLink);
  }

  /** Who holds `companyId`, directly and up the chain to the ultimate owners, nearest first. */
  async owners(companyId: string): Promise<OwnershipLink[]> {
    const sql = `WITH RECURSIVE chain(company_id, via_id, depth, direct_pct, effective_pct, path) AS (
        SELECT o.parent_id, o.child_id, 1, o.percentage, o.percentage, '/' || o.child_id || '/' || o.parent_id || '/'
        FROM ownership o WHERE o.child_id = ?
        UNION ALL
        SELECT o.parent_id, o.child_id, ch.depth + 1, o.percentage, ch.effective_pct * o.percentage / 100.0,
               ch.path || o.parent_id || '/'
        FROM ownership o JOIN chain ch ON o.child_id = ch.company_id
        WHERE ch.depth < ? AND ch.path NOT LIKE '%/' || o.parent_id || '/%'
      )
      SELECT ${SUMMARY_COLUMNS}, ch.depth, ch.direct_pct, ch.effective_pct, ch.via_id, v.name AS via_name
      FROM chain ch JOIN companies c ON c.id = ch.company_id ${SUMMARY_JOINS} JOIN companies v ON v.id = ch.via_id
      ORDER BY ch.depth, ch.effective_pct DESC, c.name`;
    return (await this.#db.query<LinkRow>(sql, [companyId, MAX_DEPTH])).map(toLink);
  }

  /** A company with its rank by market capitalisation, direct owners and direct holdings. */
  async profile(companyId: string): Promise<CompanyProfile | undefined> {
    const [row] = await this.#db.query<SummaryRow & { description: string }>(
      `SELECT ${SUMMARY_COLUMNS}, c.description FROM ${SUMMARY_FROM} WHERE c.id = ?`,
      [companyId],
    );
    if (!row) return undefined;
    const [counts] = await this.#db.query<{ rank: number; listed_count: number }>(
      `SELECT CAST(SUM(CASE WHEN other.market_cap > ? THEN 1 ELSE 0 END) AS INTEGER) + 1 AS rank,
              CAST(COUNT(*) AS INTEGER) AS listed_count
       FROM companies other WHERE other.listed = 1`,
      [row.market_cap ?? 0],
    );
    const [owners, holdings] = await Promise.all([this.owners(companyId), this.holdings(companyId)]);
    const company = toSummary(row);
    return {
      company: { ...company, description: row.description },
      marketCapRank: company.listed && company.marketCap !== null ? (counts?.rank ?? null) : null,
      listedCount: counts?.listed_count ?? 0,
      owners: owners.filter((o) => o.depth === 1),
      holdings: holdings.filter((h) => h.depth === 1),
    };
  }

  /** Totals and averages over a sector and every sector below it (a recursive walk of the sector tree). */
  async sectorMetrics(sectorId: string): Promise<SectorMetrics | undefined> {
    const covered = await this.#db.query<{ id: string; name: string }>(
      `WITH RECURSIVE ${SECTOR_TREE} SELECT s.id, s.name FROM sector_tree t JOIN sectors s ON s.id = t.id ORDER BY s.name`,
      [sectorId],
    );
    const sector = covered.find((s) => s.id === sectorId);
    if (!sector) return undefined;
    const [totals] = await this.#db.query<{
      total_market_cap: number | null;
      total_revenue: number | null;
      total_net_profit: number | null;
      avg_roe: number | null;
      avg_pe: number | null;
      avg_dividend_yield: number | null;
    }>(
      `WITH RECURSIVE ${SECTOR_TREE}
       SELECT SUM(c.market_cap) AS total_market_cap, SUM(f.revenue) AS total_revenue,
              SUM(f.net_profit) AS total_net_profit, AVG(f.roe) AS avg_roe, AVG(f.pe_ratio) AS avg_pe,
              AVG(f.dividend_yield) AS avg_dividend_yield
       FROM ${SUMMARY_FROM}
       WHERE c.listed = 1 AND c.sector_id IN (SELECT id FROM sector_tree)`,
      [sectorId],
    );
    const companies = await this.rank({ metric: "market_cap", limit: 50, sectorId });
    const revenue = Number(totals?.total_revenue ?? 0);
    const profit = Number(totals?.total_net_profit ?? 0);
    return {
      sector,
      coveredSectors: covered.map((s) => s.name),
      companies,
      totalMarketCap: Number(totals?.total_market_cap ?? 0),
      totalRevenue: revenue,
      totalNetProfit: profit,
      netMargin: revenue > 0 ? (profit / revenue) * 100 : null,
      avgRoe: numberOrNull(totals?.avg_roe),
      avgPeRatio: numberOrNull(totals?.avg_pe),
      avgDividendYield: numberOrNull(totals?.avg_dividend_yield),
    };
  }

  async #loadDirectory(): Promise<CompanyDirectory> {
    const [companies, companyAliases, sectors, sectorAliases, info] = await Promise.all([
      this.#db.query<{ id: string; name: string; listed: number | boolean }>(
        "SELECT id, name, listed FROM companies ORDER BY id",
      ),
      this.#db.query<{ company_id: string; alias: string }>(
        "SELECT company_id, alias FROM company_aliases ORDER BY company_id, alias",
      ),
      this.#db.query<{ id: string; name: string; parent_id: string | null }>(
        "SELECT id, name, parent_id FROM sectors ORDER BY id",
      ),
      this.#db.query<{ sector_id: string; alias: string }>(
        "SELECT sector_id, alias FROM sector_aliases ORDER BY sector_id, alias",
      ),
      this.#db.query<{ key: string; value: string }>("SELECT key, value FROM dataset_info"),
    ]);
    const aliasesOf = (rows: { alias: string }[]) => rows.map((r) => r.alias);
    const meta = new Map(info.map((r) => [r.key, r.value]));
    return {
      companies: companies.map((c) => ({
        id: c.id,
        name: c.name,
        listed: Boolean(c.listed),
        aliases: aliasesOf(companyAliases.filter((a) => a.company_id === c.id)),
      })),
      sectors: sectors.map((s) => ({
        id: s.id,
        name: s.name,
        parentId: s.parent_id,
        aliases: aliasesOf(sectorAliases.filter((a) => a.sector_id === s.id)),
      })),
      notice: meta.get("notice") ?? "",
      currency: meta.get("currency") ?? "",
    };
  }
}

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

function toSummary(row: SummaryRow): CompanySummary {
  return {
    id: row.id,
    name: row.name,
    sectorId: row.sector_id,
    sector: row.sector,
    listed: Boolean(row.listed),
    marketCap: numberOrNull(row.market_cap),
    fiscalYear: numberOrNull(row.fiscal_year),
    revenue: numberOrNull(row.revenue),
    netProfit: numberOrNull(row.net_profit),
    totalAssets: numberOrNull(row.total_assets),
    roe: numberOrNull(row.roe),
    peRatio: numberOrNull(row.pe_ratio),
    dividendYield: numberOrNull(row.dividend_yield),
  };
}

function toLink(row: LinkRow): OwnershipLink {
  return {
    company: toSummary(row),
    depth: Number(row.depth),
    directPct: Number(row.direct_pct),
    effectivePct: Number(row.effective_pct),
    via: { id: row.via_id, name: row.via_name },
  };
}
