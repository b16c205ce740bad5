import { expect, it } from "vitest";
import type { CompanyGraph } from "../companies/company-graph.js";

/**
 * The company-graph behaviour both databases must show; run by the SQLite test and the PostgreSQL
 * integration test. @internal
 */
export function companyGraphCases(graph: () => CompanyGraph): void {
  it("ranks listed companies by market capitalisation", async () => {
    const top = await graph().rank({ metric: "market_cap", limit: 5 });
    expect(top.map((c) => c.id)).toEqual(["JKH", "CTC", "COMB", "LOLC", "HNB"]);
    expect(top[0]).toMatchObject({ name: "John Keells Holdings PLC", sector: "Capital Goods", marketCap: 330_000 });
  });

  it("ranks within a sector and every sector below it (recursive sector tree)", async () => {
    const financials = await graph().rank({ metric: "roe", limit: 3, sectorId: "financials" });
    expect(financials.map((c) => c.id)).toEqual(["LOFC", "UAL", "NTB"]);
    const tech = await graph().rank({ metric: "market_cap", limit: 10, sectorId: "technology" });
    expect(tech.map((c) => c.id)).toEqual(["DIAL", "SLTL", "ECL"]); // Mobitel is unlisted
  });

  it("walks holdings down the ownership graph with effective percentages", async () => {
    const links = await graph().holdings("JKH");
    const byId = new Map(links.map((l) => [l.company.id, l]));
    expect(links.filter((l) => l.depth === 1)).toHaveLength(7);
    expect(byId.get("CCS")).toMatchObject({ depth: 1, directPct: 81.3, effectivePct: 81.3 });
    const jmsl = byId.get("JMSL");
    expect(jmsl).toMatchObject({ depth: 2, directPct: 100, via: { id: "CCS", name: "Ceylon Cold Stores PLC" } });
    expect(jmsl?.effectivePct).toBeCloseTo(81.3, 6);
    const ecl = (await graph().holdings("SLTL")).find((l) => l.company.id === "ECL");
    expect(ecl).toMatchObject({ depth: 2, directPct: 90.5 });
    expect(ecl?.effectivePct).toBeCloseTo(90.5, 6);
    expect(await graph().holdings("ECL")).toEqual([]);
  });

  it("walks owners up to the ultimate owner", async () => {
    const owners = await graph().owners("PURI");
    expect(owners.map((o) => [o.company.id, o.depth])).toEqual([
      ["HAYC", 1],
      ["HAYL", 2],
    ]);
    expect(owners[1]?.effectivePct).toBeCloseTo(67.7, 6);
  });

  it("profiles a company with its market-cap rank, owners and direct holdings", async () => {
    const profile = await graph().profile("CCS");
    expect(profile).toMatchObject({ marketCapRank: 14, listedCount: 22 });
    expect(profile?.owners.map((o) => o.company.id)).toEqual(["JKH"]);
    expect(profile?.holdings.map((h) => h.company.id)).toEqual(["JMSL"]);
    expect(await graph().profile("NOPE")).toBeUndefined();
  });

  it("aggregates a sector's metrics over its sub-sectors", async () => {
    const banks = await graph().sectorMetrics("banks");
    expect(banks?.companies.map((c) => c.id)).toEqual(["COMB", "HNB", "SAMP", "NTB"]);
    expect(banks?.totalMarketCap).toBe(192_000 + 124_000 + 96_000 + 31_000);
    expect(banks?.avgRoe).toBeCloseTo((15.2 + 13.1 + 14.3 + 17.8) / 4, 6);
    const tech = await graph().sectorMetrics("technology");
    expect(tech?.coveredSectors).toEqual(["Software & Services", "Technology", "Telecommunication Services"]);
    expect(tech?.totalRevenue).toBe(180_000 + 110_000 + 1_050);
  });

  it("lists names and aliases for the question parser", async () => {
    const directory = await graph().directory();
    expect(directory.notice).toMatch(/^SAMPLE DATA/);
    expect(directory.companies.find((c) => c.id === "JKH")?.aliases).toContain("John Keells");
    expect(directory.sectors.find((s) => s.id === "banks")?.aliases).toContain("banking");
  });
}
