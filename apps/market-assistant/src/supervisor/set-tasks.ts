import type { CompanyGraph, CompanySummary, RankMetric, RankOrder } from "../companies/company-graph.js";
import { metricLabel, money, percent } from "../companies/company-text.js";
import { type FigureCondition, meets } from "./question-filters.js";

/** Money figures add up; ratios are averaged. */
const MONEY: ReadonlySet<RankMetric> = new Set(["market_cap", "revenue", "net_profit", "total_assets"]);

/**
 * A figure of a company, or null when it has none.
 *
 * @example
 * figureOf(company, "pe_ratio"); // 3.4
 */
export function figureOf(c: CompanySummary, metric: RankMetric): number | null {
  switch (metric) {
    case "market_cap":
      return c.marketCap;
    case "revenue":
      return c.revenue;
    case "net_profit":
      return c.netProfit;
    case "total_assets":
      return c.totalAssets;
    case "roe":
      return c.roe;
    case "pe_ratio":
      return c.peRatio;
    case "dividend_yield":
      return c.dividendYield;
  }
}

/**
 * A figure as the answers show it: money in millions, ratios in %, P/E in times.
 *
 * @example
 * showFigure(3.4, "pe_ratio", "LKR"); // "3.4x"
 */
export function showFigure(value: number | null, metric: RankMetric, currency: string): string {
  if (MONEY.has(metric)) return money(value, currency);
  if (metric === "pe_ratio") return value === null ? "n/a" : `${value.toFixed(1)}x`;
  return percent(value);
}

const OP_WORDS: Record<FigureCondition["op"], string> = {
  lt: "below",
  lte: "at most",
  gt: "above",
  gte: "at least",
};

function conditionText(c: FigureCondition, currency: string): string {
  return `${metricLabel(c.metric)} ${OP_WORDS[c.op]} ${showFigure(c.value, c.metric, currency)}`;
}

/**
 * The listed companies (of a sector, or of a given set) whose figures meet every condition, listed with
 * those figures, and how many they are; with no condition, how many companies there are and how many
 * are listed.
 *
 * @example
 * await filterText(graph, { conditions: [{ metric: "pe_ratio", op: "lt", value: 4 }], count: false }, "LKR");
 * // "3 listed companies have a P/E ratio below 4.0x:\n- Nations Trust Bank PLC (NTB): P/E ratio 2.7x\n…"
 */
export async function filterText(
  graph: CompanyGraph,
  task: {
    conditions: FigureCondition[];
    sectorId?: string;
    companyIds?: string[];
    count: boolean;
    listedOnly?: boolean;
  },
  context: { currency: string; scope?: string },
): Promise<string> {
  const all = await graph.companies(task.sectorId !== undefined ? { sectorId: task.sectorId } : {});
  const pool = task.companyIds ? all.filter((c) => task.companyIds?.includes(c.id)) : all;
  const scope = context.scope ? ` ${context.scope}` : "";
  if (task.conditions.length === 0) {
    const listed = pool.filter((c) => c.listed);
    if (task.listedOnly) {
      const names = listed.map((c) => c.name).join(", ");
      return `${listed.length} of the ${pool.length} companies${scope} in the database are listed: ${names}.`;
    }
    return `The database holds ${pool.length} companies${scope}: ${listed.length} listed and ${pool.length - listed.length} unlisted.`;
  }
  const first = task.conditions[0] as FigureCondition;
  const matches = pool
    .filter((c) => c.listed && task.conditions.every((cond) => meets(figureOf(c, cond.metric), cond)))
    .sort((a, b) => (figureOf(a, first.metric) ?? 0) - (figureOf(b, first.metric) ?? 0) || a.id.localeCompare(b.id));
  const wanted = task.conditions.map((c) => conditionText(c, context.currency)).join(" and ");
  if (matches.length === 0) return `No listed company${scope} has a ${wanted}.`;
  const lines = matches.map(
    (c) =>
      `- ${c.name} (${c.id}, ${c.sector}): ${task.conditions
        .map(
          (cond) =>
            `${metricLabel(cond.metric)} ${showFigure(figureOf(c, cond.metric), cond.metric, context.currency)}`,
        )
        .join(", ")}`,
  );
  const n = matches.length;
  return `${n} listed ${n === 1 ? "company" : "companies"}${scope} ${n === 1 ? "has" : "have"} a ${wanted}:\n${lines.join("\n")}`;
}

/**
 * The sum (money) or average (ratios) of figures over a set of companies, with each company's figure.
 *
 * @example
 * await aggregateText(graph, { companyIds: ["COMB", "HNB"], metrics: ["net_profit"], op: "sum" }, "LKR");
 * // "Combined net profit of Commercial Bank of Ceylon PLC and Hatton National Bank PLC: LKR … mn\n- …"
 */
export async function aggregateText(
  graph: CompanyGraph,
  task: { companyIds: string[]; metrics: RankMetric[]; op: "sum" | "avg" },
  currency: string,
): Promise<string> {
  const all = await graph.companies();
  const set = task.companyIds.flatMap((id) => all.filter((c) => c.id === id));
  const names = joinNames(set.map((c) => c.name));
  const parts = task.metrics.map((metric) => {
    const values = set.map((c) => ({ c, v: figureOf(c, metric) }));
    const known = values.filter((x): x is { c: CompanySummary; v: number } => x.v !== null);
    const average = task.op === "avg" || !MONEY.has(metric);
    const total = known.reduce((sum, x) => sum + x.v, 0);
    const result = known.length === 0 ? null : average ? total / known.length : total;
    const head = `${average ? "Average" : "Combined"} ${metricLabel(metric)} of ${names}: ${showFigure(result, metric, currency)}`;
    const missing = values.filter((x) => x.v === null).map((x) => x.c.name);
    const lines = values.map((x) => `- ${x.c.name}: ${showFigure(x.v, metric, currency)}`);
    const note =
      missing.length > 0
        ? `\n(${joinNames(missing)} ${missing.length === 1 ? "has" : "have"} no figure and ${missing.length === 1 ? "is" : "are"} left out.)`
        : "";
    return `${head}\n${lines.join("\n")}${note}`;
  });
  return parts.join("\n\n");
}

/**
 * Sectors ranked by the total (money) or average (ratios) of their listed companies' figures, each
 * company counted once, in the sector it is classified in.
 *
 * @example
 * await sectorRankText(graph, { metric: "revenue", order: "desc", limit: 1 }, "LKR");
 * // "Sector with the highest total revenue: Banks — LKR … mn (4 listed companies)"
 */
export async function sectorRankText(
  graph: CompanyGraph,
  task: { metric: RankMetric; order: RankOrder; limit: number },
  currency: string,
): Promise<string> {
  const all = (await graph.companies()).filter((c) => c.listed);
  const average = !MONEY.has(task.metric);
  const bySector = new Map<string, { name: string; values: number[] }>();
  for (const c of all) {
    const v = figureOf(c, task.metric);
    if (v === null) continue;
    const entry = bySector.get(c.sectorId) ?? { name: c.sector, values: [] };
    entry.values.push(v);
    bySector.set(c.sectorId, entry);
  }
  const rows = [...bySector.values()]
    .map((s) => {
      const total = s.values.reduce((a, b) => a + b, 0);
      return { name: s.name, value: average ? total / s.values.length : total, n: s.values.length };
    })
    .sort((a, b) => (task.order === "asc" ? a.value - b.value : b.value - a.value) || a.name.localeCompare(b.name))
    .slice(0, Math.max(1, task.limit));
  const measure = `${average ? "average" : "total"} ${metricLabel(task.metric)}`;
  const line = (r: (typeof rows)[number]) =>
    `${r.name} — ${showFigure(r.value, task.metric, currency)} (${r.n} listed ${r.n === 1 ? "company" : "companies"})`;
  const end = task.order === "asc" ? "lowest" : "highest";
  if (rows.length === 1) return `Sector with the ${end} ${measure}: ${line(rows[0] as (typeof rows)[number])}.`;
  return `Sectors by ${measure} (${end} first; each company counted in its own sector):\n${rows
    .map((r, i) => `${i + 1}. ${line(r)}`)
    .join("\n")}`;
}

/**
 * Companies of a set ranked by a figure.
 *
 * @example
 * await setRankText(graph, { companyIds: ["CCS", "KFP"], metric: "revenue", order: "desc", limit: 1 }, "LKR");
 */
export async function setRankText(
  graph: CompanyGraph,
  task: { companyIds: string[]; metric: RankMetric; order: RankOrder; limit: number },
  currency: string,
): Promise<string> {
  const all = await graph.companies();
  const set = task.companyIds.flatMap((id) => all.filter((c) => c.id === id));
  const known = set
    .filter((c) => figureOf(c, task.metric) !== null)
    .sort((a, b) => {
      const d = (figureOf(a, task.metric) ?? 0) - (figureOf(b, task.metric) ?? 0);
      return (task.order === "asc" ? d : -d) || a.id.localeCompare(b.id);
    });
  const without = set.filter((c) => figureOf(c, task.metric) === null).map((c) => c.name);
  const note =
    without.length > 0 ? `\n(No ${metricLabel(task.metric)} in the database for ${joinNames(without)}.)` : "";
  if (known.length === 0)
    return `None of ${joinNames(set.map((c) => c.name))} has a ${metricLabel(task.metric)} in the database.`;
  const end = task.order === "asc" ? "Lowest" : "Highest";
  const shown = known.slice(0, Math.max(1, task.limit));
  const line = (c: CompanySummary) =>
    `${c.name} (${c.id}): ${showFigure(figureOf(c, task.metric), task.metric, currency)}`;
  const head = `${end} ${metricLabel(task.metric)} among ${joinNames(set.map((c) => c.name))}`;
  if (shown.length === 1) {
    const rest = known.slice(1).map((c) => `- ${line(c)}`);
    return `${head}: ${line(shown[0] as CompanySummary)}.${rest.length ? `\nThe others:\n${rest.join("\n")}` : ""}${note}`;
  }
  return `${head}:\n${shown.map((c, i) => `${i + 1}. ${line(c)}`).join("\n")}${note}`;
}

/**
 * The companies a holder owns more than a stake of (effective stake, through subsidiaries too), with
 * their market capitalisation or another figure, and the total of that figure over the listed ones.
 *
 * @example
 * await stakeFilterText(graph, { companyId: "JKH", minStake: { op: "gt", value: 50 }, metric: "market_cap" }, "LKR");
 */
export async function stakeFilterText(
  graph: CompanyGraph,
  task: { companyId: string; holder: string; minStake: { op: "gt" | "gte"; value: number }; metric?: RankMetric },
  currency: string,
): Promise<string> {
  const links = (await graph.holdings(task.companyId)).filter((l) => meets(l.effectivePct, task.minStake));
  const phrase = `${task.minStake.op === "gte" ? "at least" : "more than"} ${percent(task.minStake.value)}`;
  if (links.length === 0) return `${task.holder} holds ${phrase} of no company in the database.`;
  const metric = task.metric ?? "market_cap";
  const lines = links.map((l) => {
    const stake = l.depth > 1 ? `effective ${percent(l.effectivePct)} through ${l.via.name}` : percent(l.directPct);
    const figure = l.company.listed ? showFigure(figureOf(l.company, metric), metric, currency) : "unlisted";
    return `- ${l.company.name} (${stake}): ${metricLabel(metric)} ${figure}`;
  });
  const valued = links.filter((l) => figureOf(l.company, metric) !== null);
  const total = valued.reduce((sum, l) => sum + (figureOf(l.company, metric) as number), 0);
  const average = !MONEY.has(metric);
  const summary =
    valued.length === 0
      ? ""
      : `\n${average ? "Average" : "Combined"} ${metricLabel(metric)} of the ${valued.length} listed ${valued.length === 1 ? "one" : "ones"}: ${showFigure(average ? total / valued.length : total, metric, currency)} (whole companies, not the value of the stakes).`;
  return `Companies ${task.holder} owns ${phrase} of (${links.length}):\n${lines.join("\n")}${summary}`;
}

function joinNames(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
