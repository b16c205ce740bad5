import { beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DATASET } from "../companies/company-dataset.js";
import type { CompanyDirectory, CompanyGraph, RankMetric, RankOrder } from "../companies/company-graph.js";
import { sampleCompanyGraph } from "../test/sample-company-graph.js";
import { planQuestion } from "./question-plan.js";
import { buildSupervisorGraph, runSupervisorQuery } from "./supervisor-graph.js";

describe("planQuestion", () => {
  let directory: CompanyDirectory;
  beforeAll(async () => {
    directory = await (await sampleCompanyGraph()).companies.directory();
  });
  const plan = (q: string) => planQuestion(q, directory).map(({ id: _id, ...task }) => task);

  it("plans a ranking, with its size, metric and sector", () => {
    expect(plan("What are the top 5 companies by market cap?")).toEqual([
      { kind: "rank", metric: "market_cap", order: "desc", limit: 5 },
    ]);
    expect(plan("Which are the three largest banks?")).toEqual([
      { kind: "rank", metric: "market_cap", order: "desc", limit: 3, sectorId: "banks" },
    ]);
    expect(plan("Top 10 financial services companies by return on equity")).toEqual([
      { kind: "rank", metric: "roe", order: "desc", limit: 10, sectorId: "financials" },
    ]);
    expect(plan("highest dividend yield")).toEqual([
      { kind: "rank", metric: "dividend_yield", order: "desc", limit: 5 },
    ]);
  });

  it("tells what a company owns from who owns it", () => {
    expect(plan("What companies does John Keells Holdings PLC own?")).toEqual([{ kind: "holdings", companyId: "JKH" }]);
    expect(plan("List the subsidiaries of Hayleys")).toEqual([{ kind: "holdings", companyId: "HAYL" }]);
    expect(plan("Which companies are owned by JKH?")).toEqual([{ kind: "holdings", companyId: "JKH" }]);
    expect(plan("Who owns Ceylon Cold Stores?")).toEqual([{ kind: "owners", companyId: "CCS" }]);
    expect(plan("What is the parent company of E-Channelling?")).toEqual([{ kind: "owners", companyId: "ECL" }]);
  });

  it("plans metrics per sector or company, and profiles otherwise", () => {
    expect(plan("Compare the financial metrics of banks vs technology companies")).toEqual([
      { kind: "sector_metrics", sectorId: "banks" },
      { kind: "sector_metrics", sectorId: "technology" },
    ]);
    expect(plan("What was Dialog's revenue and profit?")).toEqual([{ kind: "company_metrics", companyId: "DIAL" }]);
    expect(plan("Tell me about John Keells")).toEqual([{ kind: "profile", companyId: "JKH" }]);
    expect(plan("What is the market cap of Commercial Bank?")).toEqual([{ kind: "profile", companyId: "COMB" }]);
    expect(plan("Tell me about the insurance sector")).toEqual([{ kind: "sector_companies", sectorId: "insurance" }]);
  });

  it("matches the longest name first and does not read a company's name as a sector", () => {
    expect(plan("Tell me about Keells Food Products")).toEqual([{ kind: "profile", companyId: "KFP" }]);
    expect(plan("Tell me about Commercial Bank")).toEqual([{ kind: "profile", companyId: "COMB" }]);
  });

  it("returns an empty plan for questions the database cannot answer, and numbers tasks", () => {
    expect(plan("What will the weather be tomorrow?")).toEqual([]);
    expect(planQuestion("Tell me about HNB and Sampath", directory).map((t) => t.id)).toEqual(["t1", "t2"]);
  });
});

/**
 * The expected ranking, computed from the dataset itself (not from the SQL under test): listed
 * companies with the figure, in the sector or any sector below it, sorted by the figure then the id.
 */
function expectedRanking(metric: RankMetric, order: RankOrder, limit: number, sectorId?: string): string[] {
  const below = (id: string): boolean => {
    if (id === sectorId) return true;
    const parent = SAMPLE_DATASET.sectors.find((s) => s.id === id)?.parentId;
    return parent ? below(parent) : false;
  };
  const value = (id: string): number | undefined => {
    const c = SAMPLE_DATASET.companies.find((x) => x.id === id);
    const f = SAMPLE_DATASET.financials.find((x) => x.companyId === id);
    const figures: Record<RankMetric, number | null | undefined> = {
      market_cap: c?.marketCap,
      revenue: f?.revenue,
      net_profit: f?.netProfit,
      total_assets: f?.totalAssets,
      roe: f?.roe,
      pe_ratio: f?.peRatio,
      dividend_yield: f?.dividendYield,
    };
    return figures[metric] ?? undefined;
  };
  return SAMPLE_DATASET.companies
    .filter((c) => c.listed && value(c.id) !== undefined && (sectorId === undefined || below(c.sectorId)))
    .sort((a, b) => {
      const diff = (value(a.id) as number) - (value(b.id) as number);
      return (order === "asc" ? diff : -diff) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    })
    .slice(0, limit)
    .map((c) => c.id);
}

describe("the offline planner over the seed's question types (issue 23: order words, metrics, what the data lacks)", () => {
  let companies: CompanyGraph;
  let directory: CompanyDirectory;
  beforeAll(async () => {
    companies = (await sampleCompanyGraph()).companies;
    directory = await companies.directory();
  });

  type Ranking = [question: string, metric: RankMetric, order: RankOrder, limit: number, sectorId?: string];
  const rankings: Ranking[] = [
    ["What are the top 5 companies by market cap?", "market_cap", "desc", 5],
    ["Top 10 companies by market capitalisation", "market_cap", "desc", 10],
    ["Which are the three largest banks?", "market_cap", "desc", 3, "banks"],
    ["5 smallest companies", "market_cap", "asc", 5],
    ["What are the 3 smallest listed companies?", "market_cap", "asc", 3],
    ["bottom 4 companies by market cap", "market_cap", "asc", 4],
    ["Which is the biggest bank?", "market_cap", "desc", 5, "banks"],
    ["List the two biggest companies", "market_cap", "desc", 2],
    ["Which 3 companies have the lowest P/E ratio?", "pe_ratio", "asc", 3],
    ["Which 3 companies have the highest P/E ratio?", "pe_ratio", "desc", 3],
    ["lowest price-to-earnings ratio among banks", "pe_ratio", "asc", 5, "banks"],
    ["top 5 by P/E", "pe_ratio", "desc", 5],
    ["Which bank is the most profitable?", "net_profit", "desc", 1, "banks"],
    ["Which company is the least profitable?", "net_profit", "asc", 1],
    ["Top 3 companies by net profit", "net_profit", "desc", 3],
    ["lowest 3 companies by earnings", "net_profit", "asc", 3],
    ["Which company has the highest revenue?", "revenue", "desc", 1],
    ["Top five companies by sales", "revenue", "desc", 5],
    ["Which 2 companies have the lowest revenue?", "revenue", "asc", 2],
    ["highest dividend yield", "dividend_yield", "desc", 5],
    ["Which 3 banks have the lowest dividend yield?", "dividend_yield", "asc", 3, "banks"],
    ["top 4 dividend payers by dividend yield", "dividend_yield", "desc", 4],
    ["Top 10 financial services companies by return on equity", "roe", "desc", 10, "financials"],
    ["Which company has the highest ROE?", "roe", "desc", 1],
    ["lowest ROE among banks", "roe", "asc", 5, "banks"],
    ["Which 3 companies have the most total assets?", "total_assets", "desc", 3],
    ["smallest 2 banks by total assets", "total_assets", "asc", 2, "banks"],
    ["Top 3 telecom companies by revenue", "revenue", "desc", 3, "telecommunication"],
    ["What is the largest company in the consumer services sector?", "market_cap", "desc", 1, "consumer-services"],
    ["Rank the insurance companies by market cap", "market_cap", "desc", 5, "insurance"],
    ["Which financials have the lowest P/E?", "pe_ratio", "asc", 5, "financials"],
    ["Who is the most valuable company?", "market_cap", "desc", 1],
    ["Which company has the worst ROE?", "roe", "asc", 1],
    ["Which company earns the most?", "net_profit", "desc", 1],
  ];

  it.each(rankings)("%s → %s, %s, %i", async (question, metric, order, limit, sectorId) => {
    const tasks = planQuestion(question, directory).map(({ id: _id, ...task }) => task);
    expect(tasks).toEqual([{ kind: "rank", metric, order, limit, ...(sectorId ? { sectorId } : {}) }]);
    const { answer } = await runSupervisorQuery(buildSupervisorGraph(companies), question);
    const listed = [...answer.matchAll(/^\d+\. .*? \(([A-Z]+), /gm)].map((m) => m[1]);
    expect(listed).toEqual(expectedRanking(metric, order, limit, sectorId));
  });

  const lacking: [question: string, what: RegExp][] = [
    ["share price of Dialog", /not hold share prices for Dialog Axiata PLC/],
    ["What is the stock price of John Keells?", /not hold share prices for John Keells Holdings PLC/],
    ["Which company has the most debt?", /not hold debt or liabilities/],
    ["What is the EPS of Commercial Bank?", /not hold earnings per share for Commercial Bank of Ceylon PLC/],
    ["How many employees does Hayleys have?", /not hold employee numbers for Hayleys PLC/],
    ["revenue growth of Dialog", /not hold figures over several years/],
    ["Which is the best company?", /not hold a figure that measures "best"/],
    ["Which bank is the riskiest?", /not hold a figure that measures "riskiest"/],
  ];

  it.each(lacking)("%s → says the data does not hold it, and lists no ranking", async (question, what) => {
    const { answer } = await runSupervisorQuery(buildSupervisorGraph(companies), question);
    expect(answer).toMatch(what);
    expect(answer).not.toMatch(/^\d+\. /m);
  });
});
