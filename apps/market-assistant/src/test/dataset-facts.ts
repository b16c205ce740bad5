/**
 * Expected answers computed from the dataset itself (the records the database is loaded from), for
 * tests that check every figure an answer gives: the test never hard-codes a number, so it checks the
 * app's SQL and arithmetic against an independent reading of the same data.
 */

import { type CompanyRecord, SAMPLE_DATASET } from "../companies/company-dataset.js";
import type { RankMetric } from "../companies/company-graph.js";

const D = SAMPLE_DATASET;

/** A company record by id. */
export function company(id: string): CompanyRecord {
  const c = D.companies.find((x) => x.id === id);
  if (!c) throw new Error(`no company ${id} in the dataset`);
  return c;
}

/** A sector's name. */
export function sectorName(id: string): string {
  return D.sectors.find((s) => s.id === id)?.name ?? id;
}

/** The sector and every sector below it. */
export function sectorTree(id: string): string[] {
  const out = [id];
  for (let i = 0; i < out.length; i++) for (const s of D.sectors) if (s.parentId === out[i]) out.push(s.id);
  return out;
}

/** A company's figure (latest fiscal year), or null. */
export function figure(id: string, metric: RankMetric): number | null {
  if (metric === "market_cap") return company(id).marketCap;
  const rows = D.financials.filter((f) => f.companyId === id).sort((a, b) => b.fiscalYear - a.fiscalYear);
  const f = rows[0];
  if (!f) return null;
  const key = {
    revenue: "revenue",
    net_profit: "netProfit",
    total_assets: "totalAssets",
    roe: "roe",
    pe_ratio: "peRatio",
    dividend_yield: "dividendYield",
  } as const;
  return f[key[metric]];
}

/** Listed companies, optionally of a sector (and the sectors below it). */
export function listedCompanies(sectorId?: string): CompanyRecord[] {
  const tree = sectorId ? sectorTree(sectorId) : undefined;
  return D.companies.filter((c) => c.listed && (!tree || tree.includes(c.sectorId)));
}

/** Listed companies ranked by a figure (those without it left out). */
export function ranked(metric: RankMetric, order: "asc" | "desc", sectorId?: string): CompanyRecord[] {
  return listedCompanies(sectorId)
    .filter((c) => figure(c.id, metric) !== null)
    .sort((a, b) => {
      const d = (figure(a.id, metric) as number) - (figure(b.id, metric) as number);
      return (order === "asc" ? d : -d) || a.id.localeCompare(b.id);
    });
}

/** Everything a company holds, through chains, with the effective stake (product of the stakes). */
export function holdingsOf(id: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (from: string, pct: number, seen: Set<string>) => {
    for (const o of D.ownership.filter((x) => x.parentId === from && !seen.has(x.childId))) {
      const effective = (pct * o.percentage) / 100;
      if (!out.has(o.childId)) out.set(o.childId, effective);
      walk(o.childId, effective, new Set([...seen, o.childId]));
    }
  };
  walk(id, 100, new Set([id]));
  return out;
}

/** The owners at the top of a company's ownership chains (owned by nobody in the dataset). */
export function ultimateOwners(id: string): string[] {
  const parents = D.ownership.filter((o) => o.childId === id).map((o) => o.parentId);
  if (parents.length === 0) return [];
  return [...new Set(parents.flatMap((p) => (ultimateOwners(p).length > 0 ? ultimateOwners(p) : [p])))];
}

/** Sectors by the total (money) or average (ratios) of their listed companies' figure, each in its own sector. */
export function sectorsBy(metric: RankMetric, order: "asc" | "desc"): { id: string; value: number }[] {
  const money = ["market_cap", "revenue", "net_profit", "total_assets"].includes(metric);
  const groups = new Map<string, number[]>();
  for (const c of D.companies.filter((x) => x.listed)) {
    const v = figure(c.id, metric);
    if (v !== null) groups.set(c.sectorId, [...(groups.get(c.sectorId) ?? []), v]);
  }
  return [...groups.entries()]
    .map(([id, vs]) => ({ id, value: money ? sum(vs) : sum(vs) / vs.length }))
    .sort((a, b) => (order === "asc" ? a.value - b.value : b.value - a.value));
}

/** The sum of numbers. */
export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** An amount in millions as answers print it: `LKR 116,000 mn`. */
export function lkr(value: number): string {
  return `${D.currency} ${Math.round(value).toLocaleString("en-US")} mn`;
}

/** A ratio as answers print it: at most one decimal, `%`. */
export function pct(value: number): string {
  return `${Number(value.toFixed(1))}%`;
}

/** A P/E as answers print it: `3.4x`. */
export function times(value: number): string {
  return `${value.toFixed(1)}x`;
}

/** Every company of the dataset. */
export const ALL_COMPANIES: readonly CompanyRecord[] = D.companies;
