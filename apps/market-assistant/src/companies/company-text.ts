import type {
  CompanyProfile,
  CompanySummary,
  OwnershipLink,
  RankMetric,
  RankOrder,
  SectorMetrics,
} from "./company-graph.js";

/** How a metric is named and shown. */
const METRIC_LABELS: Record<RankMetric, string> = {
  market_cap: "market capitalisation",
  revenue: "revenue",
  net_profit: "net profit",
  total_assets: "total assets",
  roe: "return on equity",
  pe_ratio: "P/E ratio",
  dividend_yield: "dividend yield",
};

/**
 * The human name of a ranking metric.
 *
 * @example
 * metricLabel("roe"); // "return on equity"
 */
export function metricLabel(metric: RankMetric): string {
  return METRIC_LABELS[metric];
}

/**
 * An amount in millions, grouped: `LKR 330,000 mn`.
 *
 * @example
 * money(330000, "LKR"); // "LKR 330,000 mn"
 */
export function money(value: number | null, currency: string): string {
  if (value === null) return "n/a";
  return `${currency} ${Math.round(value).toLocaleString("en-US")} mn`;
}

/**
 * A percentage with at most one decimal: `81.3%`, `100%`.
 *
 * @example
 * percent(73.17); // "73.2%"
 */
export function percent(value: number | null): string {
  if (value === null) return "n/a";
  return `${Number(value.toFixed(1))}%`;
}

function metricValue(company: CompanySummary, metric: RankMetric, currency: string): string {
  switch (metric) {
    case "market_cap":
      return money(company.marketCap, currency);
    case "revenue":
      return money(company.revenue, currency);
    case "net_profit":
      return money(company.netProfit, currency);
    case "total_assets":
      return money(company.totalAssets, currency);
    case "roe":
      return percent(company.roe);
    case "dividend_yield":
      return percent(company.dividendYield);
    case "pe_ratio":
      return company.peRatio === null ? "n/a" : `${company.peRatio.toFixed(1)}x`;
  }
}

/**
 * A numbered ranking, one company a line.
 *
 * @example
 * rankingText(top, { metric: "market_cap", limit: 5, currency: "LKR" });
 * // "Top 5 listed companies by market capitalisation:\n1. John Keells Holdings PLC (JKH, Capital Goods): LKR 330,000 mn\n…"
 */
export function rankingText(
  companies: readonly CompanySummary[],
  options: { metric: RankMetric; limit: number; currency: string; sectorName?: string; order?: RankOrder },
): string {
  const scope = options.sectorName ? `in ${options.sectorName}` : "listed companies";
  const n = companies.length;
  const head =
    n === 1
      ? `${options.order === "asc" ? "Lowest" : "Highest"} ${metricLabel(options.metric)} ${options.sectorName ? scope : "among listed companies"}`
      : options.order === "asc"
        ? `${options.metric === "market_cap" ? "Smallest" : "Lowest"} ${n} ${scope} by ${metricLabel(options.metric)} (lowest first)`
        : `Top ${n} ${scope} by ${metricLabel(options.metric)}`;
  if (companies.length === 0) return `${head}: no listed company has that figure in the database.`;
  const lines = companies.map(
    (c, i) => `${i + 1}. ${c.name} (${c.id}, ${c.sector}): ${metricValue(c, options.metric, options.currency)}`,
  );
  return `${head}:\n${lines.join("\n")}`;
}

/**
 * What a company holds, grouped by depth, with direct and effective stakes.
 *
 * @example
 * holdingsText("John Keells Holdings PLC", await graph.holdings("JKH"), "LKR");
 */
export function holdingsText(holder: string, links: readonly OwnershipLink[], currency: string): string {
  if (links.length === 0) return `${holder} holds no stakes in other companies in the database.`;
  const direct = links.filter((l) => l.depth === 1);
  const indirect = links.filter((l) => l.depth > 1);
  const line = (l: OwnershipLink) => {
    const listing = l.company.listed ? `listed, market cap ${money(l.company.marketCap, currency)}` : "unlisted";
    const through = l.depth > 1 ? `, ${percent(l.directPct)} held through ${l.via.name}` : "";
    const stake = l.depth > 1 ? `effective ${percent(l.effectivePct)}` : percent(l.directPct);
    return `- ${l.company.name} (${l.company.sector}; ${listing}): ${stake}${through}`;
  };
  const parts = [`${holder} holds stakes in ${links.length} companies (${direct.length} directly):`];
  parts.push(...direct.map(line));
  if (indirect.length > 0) parts.push("Indirect holdings (through subsidiaries):", ...indirect.map(line));
  const lookThrough = links
    .filter((l) => l.company.listed && l.company.marketCap !== null)
    .reduce((sum, l) => sum + ((l.company.marketCap as number) * l.effectivePct) / 100, 0);
  if (lookThrough > 0) parts.push(`Value of the listed stakes at market: ${money(lookThrough, currency)}.`);
  return parts.join("\n");
}

/**
 * Who holds a company, up the chain to its ultimate owners.
 *
 * @example
 * ownersText("JayKay Marketing Services (Pvt) Ltd", await graph.owners("JMSL"));
 */
export function ownersText(held: string, links: readonly OwnershipLink[]): string {
  if (links.length === 0) return `No company in the database holds a stake in ${held}.`;
  const lines = links.map((l) =>
    l.depth === 1
      ? `- ${l.company.name} holds ${percent(l.directPct)} directly`
      : `- ${l.company.name} holds ${percent(l.directPct)} of ${l.via.name}, so effectively ${percent(l.effectivePct)}`,
  );
  const ultimate = links.filter((l) => !links.some((other) => other.via.id === l.company.id));
  const top = ultimate.map((l) => `${l.company.name} (${percent(l.effectivePct)})`).join(", ");
  return `Owners of ${held}:\n${lines.join("\n")}\nUltimate owner${ultimate.length > 1 ? "s" : ""}: ${top}.`;
}

/**
 * A company profile: sector, market capitalisation and rank, latest figures, owners and holdings.
 *
 * @example
 * profileText(await graph.profile("COMB"), "LKR");
 */
export function profileText(profile: CompanyProfile, currency: string): string {
  const c = profile.company;
  const lines = [`${c.name} (${c.id}) — ${c.sector}. ${c.description}`];
  if (c.listed) {
    const rank = profile.marketCapRank === null ? "" : ` (#${profile.marketCapRank} of ${profile.listedCount} listed)`;
    lines.push(`Market capitalisation: ${money(c.marketCap, currency)}${rank}.`);
  } else {
    lines.push("Not listed.");
  }
  if (c.fiscalYear !== null) lines.push(`FY${c.fiscalYear}: ${figuresText(c, currency)}.`);
  if (profile.owners.length > 0) {
    lines.push(`Owned by: ${profile.owners.map((o) => `${o.company.name} (${percent(o.directPct)})`).join(", ")}.`);
  }
  if (profile.holdings.length > 0) {
    const names = profile.holdings.map((h) => `${h.company.name} (${percent(h.directPct)})`);
    lines.push(`Direct holdings (${names.length}): ${names.join(", ")}.`);
  }
  return lines.join("\n");
}

/**
 * A company's latest headline figures on one line.
 *
 * @example
 * figuresText(company, "LKR"); // "revenue LKR 195,000 mn, net profit LKR 48,000 mn, ROE 15.2%, P/E 4.0x, dividend yield 6.1%"
 */
export function figuresText(c: CompanySummary, currency: string): string {
  return [
    `revenue ${money(c.revenue, currency)}`,
    `net profit ${money(c.netProfit, currency)}`,
    `total assets ${money(c.totalAssets, currency)}`,
    `ROE ${percent(c.roe)}`,
    `P/E ${c.peRatio === null ? "n/a" : `${c.peRatio.toFixed(1)}x`}`,
    `dividend yield ${percent(c.dividendYield)}`,
  ].join(", ");
}

/**
 * Sector totals and averages, then each company's figures.
 *
 * @example
 * sectorMetricsText(await graph.sectorMetrics("banks"), "LKR");
 */
export function sectorMetricsText(m: SectorMetrics, currency: string): string {
  const covered =
    m.coveredSectors.length > 1 ? ` (covers ${m.coveredSectors.filter((s) => s !== m.sector.name).join(", ")})` : "";
  if (m.companies.length === 0) return `${m.sector.name}${covered}: no listed companies in the database.`;
  const years = [...new Set(m.companies.map((c) => c.fiscalYear).filter((y) => y !== null))];
  const lines = [
    `Financial metrics of ${m.sector.name}${covered}, ${m.companies.length} listed companies${years.length === 1 ? `, FY${years[0]}` : ""}:`,
    `- Total market capitalisation: ${money(m.totalMarketCap, currency)}`,
    `- Total revenue: ${money(m.totalRevenue, currency)}; total net profit: ${money(m.totalNetProfit, currency)}; net margin ${percent(m.netMargin)}`,
    `- Average ROE: ${percent(m.avgRoe)}; average P/E: ${m.avgPeRatio === null ? "n/a" : `${m.avgPeRatio.toFixed(1)}x`}; average dividend yield: ${percent(m.avgDividendYield)}`,
    "By company:",
    ...m.companies.map((c) => `- ${c.name}: market cap ${money(c.marketCap, currency)}, ${figuresText(c, currency)}`),
  ];
  return lines.join("\n");
}

/**
 * The listed companies of a sector, largest first.
 *
 * @example
 * sectorCompaniesText("Banks", companies, "LKR");
 */
export function sectorCompaniesText(
  sectorName: string,
  companies: readonly CompanySummary[],
  currency: string,
): string {
  if (companies.length === 0) return `${sectorName}: no listed companies in the database.`;
  const lines = companies.map((c) => `- ${c.name} (${c.id}, ${c.sector}): market cap ${money(c.marketCap, currency)}`);
  return `Listed companies in ${sectorName} (${companies.length}), largest first:\n${lines.join("\n")}`;
}
