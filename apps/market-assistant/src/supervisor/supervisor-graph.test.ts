import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_DATA_NOTICE } from "../companies/company-dataset.js";
import type { CompanyGraph } from "../companies/company-graph.js";
import type { SqlDatabase } from "../database/sql-database.js";
import { sampleCompanyGraph } from "../test/sample-company-graph.js";
import { buildSupervisorGraph, runSupervisorQuery } from "./supervisor-graph.js";

describe("supervisor subgraph", () => {
  let db: SqlDatabase;
  let companies: CompanyGraph;
  beforeAll(async () => ({ db, companies } = await sampleCompanyGraph()));
  afterAll(() => db.close());

  it("answers a ranking through the market analyst, labelled as sample data", async () => {
    const result = await runSupervisorQuery(buildSupervisorGraph(companies), "Top 3 companies by market cap");
    expect(result.findings.map((f) => f.worker)).toEqual(["market_analyst"]);
    expect(result.answer).toContain("1. John Keells Holdings PLC (JKH, Capital Goods): LKR 330,000 mn");
    expect(result.answer).toContain("3. Commercial Bank of Ceylon PLC");
    expect(result.answer).not.toContain("LOLC Holdings");
    expect(result.answer.endsWith(`(${SAMPLE_DATA_NOTICE})`)).toBe(true);
    expect(result.iterations).toBe(1);
  });

  it("hands each task to the worker that owns it, in order", async () => {
    const result = await runSupervisorQuery(
      buildSupervisorGraph(companies),
      "Compare the financial metrics of banks vs technology companies",
    );
    expect(result.findings.map((f) => [f.taskId, f.worker])).toEqual([
      ["t1", "financial_analyst"],
      ["t2", "financial_analyst"],
    ]);
    expect(result.answer).toMatch(
      /Financial metrics of Banks, 4 listed companies[\s\S]*Financial metrics of Technology/,
    );
  });

  it("walks indirect holdings with effective percentages", async () => {
    const { answer } = await runSupervisorQuery(buildSupervisorGraph(companies), "What does Sri Lanka Telecom own?");
    expect(answer).toContain("- Mobitel (Pvt) Ltd (Telecommunication Services; unlisted): 100%");
    expect(answer).toContain(
      "E-Channelling PLC (Software & Services; listed, market cap LKR 2,100 mn): effective 90.5%",
    );
  });

  it("stops at max_iterations and says which parts are unanswered", async () => {
    const result = await runSupervisorQuery(buildSupervisorGraph(companies), "Tell me about HNB, Sampath and NTB", {
      maxIterations: 2,
    });
    expect(result.tasks).toHaveLength(3);
    expect(result.findings).toHaveLength(2);
    expect(result.answer).toContain("(Stopped after 2 steps, the limit: 1 of 3 parts of the question are unanswered.)");
  });

  it("says what it can answer when nothing in the question matches the database", async () => {
    const { answer, tasks } = await runSupervisorQuery(buildSupervisorGraph(companies), "Will it rain tomorrow?");
    expect(tasks).toEqual([]);
    expect(answer).toMatch(/^I could not match "Will it rain tomorrow\?" to the company database/);
    expect(answer).toContain("who owns a company");
  });

  it("fails when the database fails (the tool turns that into a message)", async () => {
    const { db: broken, companies: brokenCompanies } = await sampleCompanyGraph();
    const supervisor = buildSupervisorGraph(brokenCompanies);
    await brokenCompanies.directory();
    await broken.close();
    await expect(runSupervisorQuery(supervisor, "Top 5 companies by market cap")).rejects.toThrow(/not open/);
  });

  it("draws as the seed's supervisor topology", () => {
    const mermaid = buildSupervisorGraph(companies).drawMermaid();
    for (const worker of ["market_analyst", "ownership_analyst", "financial_analyst", "company_profiler"]) {
      expect(mermaid).toContain(`supervisor -.-> ${worker}`);
    }
  });
});
