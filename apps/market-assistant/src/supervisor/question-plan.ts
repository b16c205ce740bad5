import type { CompanyDirectory, RankMetric, RankOrder } from "../companies/company-graph.js";
import { findEntities } from "../companies/entity-matcher.js";
import {
  asksAggregate,
  asksCount,
  asksSectorRanking,
  type FigureCondition,
  figureConditions,
  stakeThreshold,
} from "./question-filters.js";

/** One piece of work the supervisor hands to a worker. */
export type SupervisorTask =
  | {
      id: string;
      kind: "rank";
      metric: RankMetric;
      order: RankOrder;
      limit: number;
      sectorId?: string;
      /** Rank only these companies ("which of those is biggest"). */
      companyIds?: string[];
    }
  | { id: string; kind: "sector_rank"; metric: RankMetric; order: RankOrder; limit: number }
  | {
      id: string;
      kind: "filter";
      conditions: FigureCondition[];
      count: boolean;
      sectorId?: string;
      companyIds?: string[];
      listedOnly?: boolean;
    }
  | { id: string; kind: "aggregate"; companyIds: string[]; metrics: RankMetric[]; op: "sum" | "avg" }
  | {
      id: string;
      kind: "stake_filter";
      companyId: string;
      minStake: { op: "gt" | "gte"; value: number };
      metric?: RankMetric;
    }
  | { id: string; kind: "not_in_data"; what: string; companyIds: string[] }
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

/** Superlatives that name no figure: they rank only with a metric the question names. */
const SUPERLATIVE = /\b(best|worst|safest|riskiest|strongest|weakest|healthiest|cheapest|most expensive|fastest)\b/;
const RANK =
  /\b(top|bottom|largest|biggest|smallest|highest|lowest|leading|most|least|rank|ranking|ranked|best|worst|safest|riskiest|strongest|weakest|healthiest|cheapest|fastest)\b/;
/** Order words that ask for the low end of a ranking. */
const ASCENDING = /\b(lowest|smallest|least|bottom|fewest|cheapest|worst|weakest)\b/;
/** Words that rank by size (market capitalisation) when no other metric is named. */
const SIZE =
  /\b(top|bottom|largest|biggest|smallest|leading|most valuable|least valuable|market cap|market capitali[sz]ation|size|rank|ranking|ranked)\b|\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\s+(companies|stocks|firms)\b/;
/** A question for one company ("Which bank is the most profitable?"): the ranking's first line answers it. */
const SINGULAR =
  /\bwhich\s+(company|bank|firm|stock|one|insurer|hotel|\w+)\s+(is|has|was|had|makes|earns|pays)\b|\bwhat is the\s+(most|least|largest|smallest|biggest|highest|lowest)\b|\bwho is the\b/;

/**
 * Figures the company graph does not hold, each with the words that ask for it. A question asking
 * for one is told so plainly, never answered with another figure.
 */
const NOT_IN_DATA: readonly { what: string; words: RegExp }[] = [
  {
    what: "share prices",
    words:
      /\b(share|stock|market|current|last|closing|opening|trading)\s+prices?\b|\bprices?\s+(per share|of (the |its |their )?(shares?|stocks?))\b|\bshare value\b|\bquotes?\b|\btrading at\b|\bprice of\b|\bhow much (is|are|does) .* (share|stock)s? (cost|worth)\b/,
  },
  { what: "earnings per share", words: /\beps\b|\bearnings per share\b/ },
  { what: "debt or liabilities", words: /\bdebts?\b|\bleverage\b|\bgearing\b|\bliabilit(y|ies)\b|\bborrowings?\b/ },
  { what: "employee numbers", words: /\bemployees?\b|\bstaff\b|\bheadcount\b|\bworkforce\b/ },
  { what: "trading volumes", words: /\b(trading|share|daily)\s+volumes?\b|\bvolume traded\b|\bliquidity\b/ },
  { what: "book values or P/B ratios", words: /\bbook value\b|\bp\/b\b|\bprice.to.book\b/ },
  {
    what: "figures over several years (only the latest fiscal year is held)",
    words:
      /\bgrowth\b|\bgrew\b|\btrends?\b|\bhistor(y|ical)\b|\b52.week\b|\blast (five|5|ten|10|three|3) years\b|\bover time\b/,
  },
  {
    what: "management or board members",
    words: /\bceo\b|\bchair(man|person)?\b|\bdirectors?\b|\bboard\b|\bmanagement\b/,
  },
];

const OWNERS =
  /\bwho\s+(?:\w+\s+){0,2}(owns|controls|holds|is behind)\b|\bowners?\b|\bparent( company)?\b|\bshareholders?\b|\bbelongs? to\b|\bcontrolled by\b|\bultimate(ly)?\b|\bowned by (whom|who|which)\b|\b(which|what) (company|group|firm) (\w+ )?(owns|controls)\b|\btop of the (ownership )?chain\b|\bownership chain\b/;
const HOLDINGS =
  /\bown(s|ed)?\b|\bholds?\b|\bcontrols?\b|\bsubsidiar(y|ies)\b|\bholdings?\b|\bstakes?\b|\bportfolio\b|\binvest(s|ed|ments?)?\b|\bgroup companies\b/;
const METRICS =
  /\bprofitab(le|ility)\b|\bfinancials?\b|\bmetrics?\b|\brevenue\b|\bsales\b|\bprofits?\b|\bearnings\b|\broe\b|\breturn on equity\b|\bp\/?e\b|\bdividends?\b|\bmargins?\b|\bassets\b|\bperformance\b|\bratios?\b|\bfigures\b/;

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
  const missing = NOT_IN_DATA.filter((m) =>
    m.words.test(rest.replace(/\bprice.?to.?earnings\b|\bprice\/earnings\b/g, " ")),
  );

  for (const m of missing) tasks.push({ kind: "not_in_data", what: m.what, companyIds: companies });
  const special = setTasks(question, rest, { companies, sectors, ranked });
  if (special.length > 0) {
    tasks.push(...special);
    return tasks.slice(0, MAX_TASKS).map((t, i) => ({ ...t, id: `t${i + 1}` }) as SupervisorTask);
  }
  if (ranked && companies.length === 0) {
    const metric = rankMetric(rest);
    if (metric !== undefined) {
      const order: RankOrder = ASCENDING.test(rest) ? "asc" : "desc";
      const limit = rankLimit(question.toLowerCase());
      if (sectors.length === 0) tasks.push({ kind: "rank", metric, order, limit });
      for (const sectorId of sectors) tasks.push({ kind: "rank", metric, order, limit, sectorId });
    } else if (missing.length === 0) {
      const word = SUPERLATIVE.exec(rest)?.[0] ?? /\b(most|least|highest|lowest)\s+\w+/.exec(rest)?.[0] ?? "that";
      tasks.push({ kind: "not_in_data", what: `a figure that measures "${word}"`, companyIds: [] });
    }
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
  if (!tasks.some((t) => t.kind !== "not_in_data")) {
    for (const companyId of companies) tasks.push({ kind: "profile", companyId });
    for (const sectorId of sectors) tasks.push({ kind: "sector_companies", sectorId });
  }
  return tasks.slice(0, MAX_TASKS).map((t, i) => ({ ...t, id: `t${i + 1}` }) as SupervisorTask);
}

/**
 * Tasks over sets and sectors: sectors ranked by a total, companies filtered by figures ("P/E below
 * 4"), counts, sums over named companies ("combined net profit of A, B and C"), a ranking among named
 * companies ("which of A, B and C is biggest"), and a holder's companies above a stake. Empty when the
 * question asks none of these.
 */
function setTasks(
  question: string,
  rest: string,
  found: { companies: string[]; sectors: string[]; ranked: boolean },
): TaskSpec[] {
  const { companies, sectors } = found;
  const order: RankOrder = ASCENDING.test(rest) ? "asc" : "desc";
  const stake = stakeThreshold(rest);
  if (stake && companies.length === 1 && (HOLDINGS.test(rest) || /\bown/.test(rest))) {
    const metric = METRICS.test(rest) || SIZE.test(rest) ? rankMetric(rest) : undefined;
    return [
      { kind: "stake_filter", companyId: companies[0] as string, minStake: stake, ...(metric ? { metric } : {}) },
    ];
  }
  if (asksSectorRanking(rest) && companies.length === 0 && sectors.length === 0) {
    const metric = rankMetric(rest) ?? "market_cap";
    const limit = /\bwhich\s+sector\s+(has|is|had|makes|earns)\b|\bwhat sector\b/.test(rest)
      ? 1
      : rankLimit(question.toLowerCase());
    return [{ kind: "sector_rank", metric, order, limit }];
  }
  const conditions: FigureCondition[] = figureConditions(rest);
  const count = asksCount(rest);
  const scope = {
    ...(sectors.length === 1 ? { sectorId: sectors[0] as string } : {}),
    ...(companies.length >= 2 ? { companyIds: companies } : {}),
  };
  if (conditions.length > 0) return [{ kind: "filter", conditions, count, ...scope }];
  if (count && !(companies.length === 1 && HOLDINGS.test(rest))) {
    return [{ kind: "filter", conditions: [], count: true, listedOnly: /\blisted\b/.test(rest), ...scope }];
  }
  const aggregate = asksAggregate(rest);
  if (aggregate && companies.length >= 2) {
    const metrics = metricsNamed(rest);
    return [
      {
        kind: "aggregate",
        companyIds: companies,
        metrics: metrics.length > 0 ? metrics : ["market_cap"],
        op: aggregate,
      },
    ];
  }
  if (found.ranked && companies.length >= 2 && !COMPARES.test(rest)) {
    const metric = rankMetric(rest) ?? "market_cap";
    const limit =
      /\bwhich (one |of )|\bwhich (has|is|had|makes|earns|pays)\b|\bwho\b|\bis (the )?(biggest|largest|smallest|highest|lowest)\b/.test(
        rest,
      )
        ? 1
        : companies.length;
    return [{ kind: "rank", metric, order, limit, companyIds: companies }];
  }
  return [];
}

const COMPARES = /\b(compare|comparison|versus|vs\.?|against|difference between)\b/;

/** Every figure a question names, in a fixed order. */
function metricsNamed(text: string): RankMetric[] {
  const out: RankMetric[] = [];
  if (/\bmarket cap|\bmarket value|\bvaluation\b/.test(text)) out.push("market_cap");
  if (/\brevenue|\bsales\b|\bturnover\b/.test(text)) out.push("revenue");
  if (/\bnet profit|\bprofits?\b|\bearnings\b|\bnet income\b/.test(text)) out.push("net_profit");
  if (/\bassets\b/.test(text)) out.push("total_assets");
  if (/\broe\b|\breturn on equity\b/.test(text)) out.push("roe");
  if (/\bp\/?e\b|price.to.earnings/.test(text)) out.push("pe_ratio");
  if (/\bdividend/.test(text)) out.push("dividend_yield");
  return out;
}

/** The metric a ranking asks for; `undefined` when it names none the database holds and is not about size. */
function rankMetric(text: string): RankMetric | undefined {
  if (/\breturn on equity\b|\broe\b/.test(text)) return "roe";
  if (/\bdividend/.test(text)) return "dividend_yield";
  if (/\bp\/?e\b|price.to.earnings/.test(text)) return "pe_ratio";
  if (/\bnet profit|\bprofit|\bearnings\b|\bearn(s|ed)?\b|\bmakes? the most money\b/.test(text)) return "net_profit";
  if (/\brevenue|\bsales\b|\bturnover\b/.test(text)) return "revenue";
  if (/\btotal assets\b|\bassets\b/.test(text)) return "total_assets";
  if (SIZE.test(text)) return "market_cap";
  return undefined;
}

/** How many companies a ranking lists: the number asked for, 1 for a question about one company, else 5. */
function rankLimit(question: string): number {
  const n = "(\\d{1,2}|" + Object.keys(NUMBER_WORDS).join("|") + ")";
  const words = "top|bottom|largest|biggest|smallest|highest|lowest|leading";
  const after = new RegExp(`\\b(?:${words})\\s+${n}\\b`).exec(question)?.[1];
  const before = new RegExp(
    `\\b${n}\\s+(?:${words}|most|least|companies|stocks|firms|banks|insurers|[a-z]+ companies)\\b`,
  ).exec(question)?.[1];
  const token = after ?? before;
  const value = token === undefined ? Number.NaN : (NUMBER_WORDS[token] ?? Number(token));
  if (Number.isInteger(value) && value > 0) return Math.min(value, 20);
  return SINGULAR.test(question) ? 1 : 5;
}
