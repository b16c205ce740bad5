import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMarketAssistant, type MarketAssistant } from "../market-assistant.js";
import { createChatRoutes } from "./chat-routes.js";

/** The numbered lines of an answer, as "name: value". */
function ranking(content: string): string[] {
  return content
    .split("\n")
    .filter((l) => /^\d+\. /.test(l))
    .map((l) => l.replace(/^\d+\. /, "").replace(/ \([^)]*\)/, ""));
}

describe("POST /chat answers ordinary questions right (issue 23, market-assistant finding 1)", () => {
  let assistant: MarketAssistant;
  let app: Hono;
  let thread = 0;
  const ask = async (message: string): Promise<string> => {
    const res = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: `ordinary-${++thread}`, message }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { content: string }).content;
  };

  beforeAll(async () => {
    assistant = await createMarketAssistant({ env: {}, config: { sqlitePath: ":memory:" } });
    app = createChatRoutes(assistant);
  });
  afterAll(() => assistant.close());

  it('"Which 3 companies have the lowest P/E ratio?" lists the lowest, lowest first, and says so', async () => {
    const content = await ask("Which 3 companies have the lowest P/E ratio?");
    expect(content).toContain("Lowest 3 listed companies by P/E ratio (lowest first):");
    expect(content).not.toContain("Top 3");
    expect(ranking(content)).toEqual([
      "Nations Trust Bank PLC: 2.7x",
      "Hatton National Bank PLC: 3.1x",
      "Sampath Bank PLC: 3.4x",
    ]);
  });

  it('"Which bank is the most profitable?" names the bank with the highest net profit', async () => {
    const content = await ask("Which bank is the most profitable?");
    expect(content).toContain("Highest net profit in Banks:");
    expect(ranking(content)).toEqual(["Commercial Bank of Ceylon PLC: LKR 48,000 mn"]);
    expect(content).not.toContain("market cap");
  });

  it('"5 smallest companies" lists the five smallest listed companies by market capitalisation', async () => {
    const content = await ask("5 smallest companies");
    expect(content).not.toContain("I could not match");
    expect(content).toContain("Smallest 5 listed companies by market capitalisation (lowest first):");
    expect(ranking(content)).toEqual([
      "E-Channelling PLC: LKR 2,100 mn",
      "Keells Food Products PLC: LKR 4,200 mn",
      "Trans Asia Hotels PLC: LKR 9,800 mn",
      "Asian Hotels and Properties PLC: LKR 12,500 mn",
      "Union Assurance PLC: LKR 19,000 mn",
    ]);
  });

  it('"share price of Dialog" says plainly that the database holds no share prices', async () => {
    const content = await ask("share price of Dialog");
    expect(content).toContain(
      "The database does not hold share prices for Dialog Axiata PLC, so I cannot answer that.",
    );
    expect(content.indexOf("does not hold share prices")).toBeLessThan(content.indexOf("Market capitalisation"));
  });

  it("a ranking by a figure the database lacks is refused, not answered with another figure", async () => {
    const content = await ask("Which company has the most debt?");
    expect(content).toContain("The database does not hold debt or liabilities");
    expect(ranking(content)).toEqual([]);
  });
});
