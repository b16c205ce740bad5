import type { CompanyDirectory, RankMetric } from "../companies/company-graph.js";
import { findEntities } from "../companies/entity-matcher.js";

/** One piece of work the supervisor hands to a worker. */
export type SupervisorTask =
  | { id: string; kind: "rank"; metric: RankMetric; limit: number; sectorId?: string }
  | { id: string; kind: "sector_companies"; sectorId: string }
  | { id: string; kind: "sector_metrics"; sectorId: string }
  | { id: string; kind: "profile"; companyId: string }
  | { id: string; kind: "company_metrics"; companyId: string }
  | { id: string; kind: "holdings"; companyId: string }
  | { id: string; kind: "owners"; companyId: string };

/** The kinds of {@link SupervisorTask}. */
export type TaskKind = SupervisorTask["kind"];

/** A task before it gets its id. */
type TaskSpec = SupervisorTask extends infer T ? (T extends SupervisorTask ? Omit<T, "id"> : never) : never;

/** Most tasks one question may produce. */
export const MAX_TASKS = 8;

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twenty: 20,
};

const RANK = /\b(top|largest|biggest|highest|lowest|leading|most valuable|rank|ranking|ranked)\b/;
const OWNERS =
  /\bwho\s+(owns|controls|holds)\b|\bowners?\b|\bparent( company)?\b|\bshareholders?\b|\bbelongs? to\b|\bcontrolled by\b/;
const HOLDINGS =
  /\bown(s|ed)?\b|\bsubsidiar(y|ies)\b|\bholdings?\b|\bstakes?\b|\bportfolio\b|\binvest(s|ed|ments?)?\b|\bgroup companies\b/;
const METRICS =
  /\bfinancials?\b|\bmetrics?\b|\brevenue\b|\bsales\b|\bprofits?\b|\bearnings\b|\broe\b|\breturn on equity\b|\bp\/?e\b|\bdividends?\b|\bmargins?\b|\bassets\b|\bperformance\b|\bratios?\b|\bfigures\b/;

/**
 * Turns a natural-language question into the tasks that answer it, using the database's directory of
 * company and sector names. Deterministic: the same question always gives the same plan.
 *
 * | the question asks for | tasks |
 * |---|---|
 * | top / largest ... by market cap (or revenue, ROE...), maybe within a sector | `rank` |
 * | what a company owns, its subsidiaries, stakes | `holdings` per company |
 * | who owns a company, its parent, shareholders | `owners` per company |
 * | financial metrics of sectors or companies | `sector_metrics` / `company_metrics` per entity |
 * | anything else about a company or a sector | `profile` / `sector_companies` |
 *
 * An empty plan means nothing in the question matched the database.
 *
 * @example
 * planQuestion("What are the top 5 companies by market cap?", directory);
 * // [{ id: "t1", kind: "rank", metric: "market_cap", limit: 5 }]
 */
export function planQuestion(question: string, directory: CompanyDirectory): SupervisorTask[] {
  const mentions = findEntities(question, directory);
  const rest = mentions.rest.toLowerCase();
  const companies = mentions.companies.map((c) => c.id);
  const sectors = mentions.sectors.map((s) => s.id);
  const tasks: TaskSpec[] = [];
  const ranked = RANK.test(rest) || (/\b(\d+|five|ten)\s+(companies|stocks|firms)\b/.test(rest) && !companies.length);

  if (ranked && companies.length === 0) {
    const metric = rankMetric(rest);
    const limit = rankLimit(rest);
    if (sectors.length === 0) tasks.push({ kind: "rank", metric, limit });
    for (const sectorId of sectors) tasks.push({ kind: "rank", metric, limit, sectorId });
  }
  if (OWNERS.test(rest)) {
    for (const companyId of companies) tasks.push({ kind: "owners", companyId });
  } else if (HOLDINGS.test(rest)) {
    for (const companyId of companies) tasks.push({ kind: "holdings", companyId });
  }
  if (METRICS.test(rest) && !ranked) {
    for (const companyId of companies) tasks.push({ kind: "company_metrics", companyId });
    for (const sectorId of sectors) tasks.push({ kind: "sector_metrics", sectorId });
  }
  if (tasks.length === 0) {
    for (const companyId of companies) tasks.push({ kind: "profile", companyId });
    for (const sectorId of sectors) tasks.push({ kind: "sector_companies", sectorId });
  }
  return tasks.slice(0, MAX_TASKS).map((t, i) => ({ ...t, id: `t${i + 1}` }) as SupervisorTask);
}

function rankMetric(text: string): RankMetric {
  if (/\breturn on equity\b|\broe\b/.test(text)) return "roe";
  if (/\bdividend/.test(text)) return "dividend_yield";
  if (/\bp\/?e\b|price.to.earnings/.test(text)) return "pe_ratio";
  if (/\bnet profit|\bprofit|\bearnings\b/.test(text)) return "net_profit";
  if (/\brevenue|\bsales\b|\bturnover\b/.test(text)) return "revenue";
  if (/\btotal assets\b|\bassets\b/.test(text)) return "total_assets";
  return "market_cap";
}

function rankLimit(text: string): number {
  const n = "(\\d{1,2}|" + Object.keys(NUMBER_WORDS).join("|") + ")";
  const after = new RegExp(`\\b(?:top|largest|biggest|highest|lowest|leading)\\s+${n}\\b`).exec(text)?.[1];
  const before = new RegExp(`\\b${n}\\s+(?:largest|biggest|top|highest|lowest|leading|companies|stocks|firms)\\b`).exec(
    text,
  )?.[1];
  const token = after ?? before;
  const value = token === undefined ? Number.NaN : (NUMBER_WORDS[token] ?? Number(token));
  return Number.isInteger(value) && value > 0 ? Math.min(value, 20) : 5;
}
