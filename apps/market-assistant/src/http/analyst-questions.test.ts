/**
 * Issue 36, market-assistant findings 1–4, through POST /chat: ownership in both directions and
 * through chains, aggregates by sector, follow-ups whose "their"/"those" mean the previous answer's
 * companies, filters and counts over the data — every figure checked against values computed from the
 * dataset here (`dataset-facts.ts`), not typed in. Then the phrasing table, share right printed.
 */
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMarketAssistant, type MarketAssistant } from "../market-assistant.js";
import {
  company,
  figure,
  holdingsOf,
  listedCompanies,
  lkr,
  ranked,
  sectorName,
  sectorsBy,
  sum,
  times,
  ultimateOwners,
} from "../test/dataset-facts.js";
import { MARKET_PHRASINGS } from "../test/phrasing-table.js";
import { createChatRoutes } from "./chat-routes.js";

let assistant: MarketAssistant;
let app: Hono;
let thread = 0;

beforeAll(async () => {
  assistant = await createMarketAssistant({ env: {}, config: { sqlitePath: ":memory:" } });
  app = createChatRoutes(assistant);
});
afterAll(() => assistant.close());

/** Asks the questions in one new thread; the last answer's content. */
async function conversation(...questions: string[]): Promise<string> {
  const id = `analyst-${++thread}`;
  let content = "";
  for (const message of questions) {
    const res = await app.request("/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ thread_id: id, message }),
    });
    expect(res.status).toBe(200);
    content = ((await res.json()) as { content: string }).content;
  }
  return content;
}

describe("issue 36 findings, through POST /chat", () => {
  it("'ultimately owns' asks for the owners up the chain, not the company's holdings", async () => {
    const content = await conversation("Who ultimately owns E-Channelling?");
    expect(content).not.toContain("holds no stakes");
    const [top] = ultimateOwners("ECL");
    expect(content).toContain(`Ultimate owner: ${company(top as string).name}`);
    // the direct owner too, on the way up
    expect(content).toContain(`${company("MOBI").name} holds`);
  });

  it("'which sector has the highest total revenue' answers with a sector and its total", async () => {
    const content = await conversation("Which sector has the highest total revenue?");
    const best = sectorsBy("revenue", "desc")[0] as { id: string; value: number };
    expect(content).toContain(`Sector with the highest total revenue: ${sectorName(best.id)} — ${lkr(best.value)}`);
  });

  it("'their combined net profit' after the top 3 banks sums those three, not every bank", async () => {
    const content = await conversation("What are the top 3 banks by market cap?", "What is their combined net profit?");
    const three = ranked("market_cap", "desc", "banks").slice(0, 3);
    const all = listedCompanies("banks");
    expect(all.length).toBeGreaterThan(3);
    expect(content).toContain(`Combined net profit of`);
    expect(content).toContain(lkr(sum(three.map((c) => figure(c.id, "net_profit") as number))));
    expect(content).not.toContain(lkr(sum(all.map((c) => figure(c.id, "net_profit") as number))));
    const fourth = ranked("market_cap", "desc", "banks")[3];
    expect(content).not.toContain(fourth?.name);
  });

  it("'which of those is biggest by revenue' after JKH's holdings ranks only those companies", async () => {
    const content = await conversation("What are JKH's holdings?", "Which of those is biggest by revenue?");
    const held = [...holdingsOf("JKH").keys()].filter((id) => figure(id, "revenue") !== null);
    const best = held.sort((a, b) => (figure(b, "revenue") as number) - (figure(a, "revenue") as number))[0] as string;
    expect(content).toContain(`Highest revenue among`);
    expect(content).toContain(`: ${company(best).name} (${best}): ${lkr(figure(best, "revenue") as number)}.`);
    const outsider = ranked("revenue", "desc").find((c) => !holdingsOf("JKH").has(c.id));
    expect(content).not.toContain(`${outsider?.name} (`);
  });

  it("'market cap of companies JKH owns more than 50% of' lists those companies and their market caps", async () => {
    const content = await conversation("market cap of companies JKH owns more than 50% of");
    const majority = [...holdingsOf("JKH").entries()].filter(([, p]) => p > 50).map(([id]) => id);
    const minority = [...holdingsOf("JKH").entries()].filter(([, p]) => p <= 50).map(([id]) => id);
    for (const id of majority) expect(content).toContain(company(id).name);
    for (const id of minority) expect(content).not.toContain(company(id).name);
    const listed = majority.filter((id) => company(id).listed);
    expect(content).toContain(
      `Combined market capitalisation of the ${listed.length} listed ones: ${lkr(sum(listed.map((id) => figure(id, "market_cap") as number)))}`,
    );
  });

  it("'P/E below 4' filters the data, and 'how many are listed' counts it", async () => {
    const content = await conversation("Which companies have a P/E below 4?");
    const low = listedCompanies().filter((c) => (figure(c.id, "pe_ratio") ?? 99) < 4);
    expect(content).toContain(`${low.length} listed companies have a P/E ratio below 4.0x:`);
    for (const c of low) {
      expect(content).toContain(
        `${c.name} (${c.id}, ${sectorName(c.sectorId)}): P/E ratio ${times(figure(c.id, "pe_ratio") as number)}`,
      );
    }
    expect(content).not.toContain("could not match");

    const count = await conversation("how many are listed");
    expect(count).toContain(`${listedCompanies().length} of the`);
    expect(count).not.toContain("could not match");
  });
});

describe("the market assistant's phrasing table, through POST /chat", () => {
  it("answers at least 90 % of the table right (share printed)", async () => {
    expect(MARKET_PHRASINGS.length).toBeGreaterThanOrEqual(30);
    const wrong: string[] = [];
    for (const row of MARKET_PHRASINGS) {
      const content = await conversation(...row.turns);
      const { contains, not = [] } = row.expected();
      const missing = contains.filter((s) => !content.includes(s));
      const extra = not.filter((s) => content.includes(s));
      if (missing.length > 0 || extra.length > 0) {
        wrong.push(
          `${row.turns.join(" → ")}: missing ${JSON.stringify(missing)}${extra.length ? `, should not say ${JSON.stringify(extra)}` : ""}\n    got: ${content.slice(0, 300).replace(/\n/g, " | ")}`,
        );
      }
    }
    const right = MARKET_PHRASINGS.length - wrong.length;
    console.log(
      `[market-assistant] phrasing table: ${right}/${MARKET_PHRASINGS.length} right (${((100 * right) / MARKET_PHRASINGS.length).toFixed(0)} %)` +
        (wrong.length ? `\n  ${wrong.join("\n  ")}` : ""),
    );
    expect(right / MARKET_PHRASINGS.length).toBeGreaterThanOrEqual(0.9);
  });
});
