import { beforeAll, describe, expect, it } from "vitest";
import type { CompanyDirectory } from "../companies/company-graph.js";
import { sampleCompanyGraph } from "../test/sample-company-graph.js";
import { planQuestion } from "./question-plan.js";

describe("planQuestion", () => {
  let directory: CompanyDirectory;
  beforeAll(async () => {
    directory = await (await sampleCompanyGraph()).companies.directory();
  });
  const plan = (q: string) => planQuestion(q, directory).map(({ id: _id, ...task }) => task);

  it("plans a ranking, with its size, metric and sector", () => {
    expect(plan("What are the top 5 companies by market cap?")).toEqual([
      { kind: "rank", metric: "market_cap", limit: 5 },
    ]);
    expect(plan("Which are the three largest banks?")).toEqual([
      { kind: "rank", metric: "market_cap", limit: 3, sectorId: "banks" },
    ]);
    expect(plan("Top 10 financial services companies by return on equity")).toEqual([
      { kind: "rank", metric: "roe", limit: 10, sectorId: "financials" },
    ]);
    expect(plan("highest dividend yield")).toEqual([{ kind: "rank", metric: "dividend_yield", limit: 5 }]);
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
