/**
 * The market assistant's phrasing table (issue 36): questions as analysts type them — ownership both
 * ways and through chains, sector aggregates, filters and counts, sums over named companies, and
 * follow-ups that say "their", "those" or "them" — each with what the answer must say, computed from
 * the dataset (`dataset-facts.ts`), never typed in. Written for this app; `phrasing.test.ts` runs it
 * through `POST /chat` and reports the share answered right.
 */
import {
  ALL_COMPANIES,
  company,
  figure,
  holdingsOf,
  listedCompanies,
  lkr,
  pct,
  ranked,
  sectorName,
  sectorsBy,
  sum,
  times,
  ultimateOwners,
} from "./dataset-facts.js";

export interface MarketPhrasing {
  /** Earlier questions of the same thread, then the question checked. */
  turns: readonly string[];
  /** What the last answer must contain, and must not. */
  expected: () => { contains: string[]; not?: string[] };
}

const names = (ids: readonly string[]) => ids.map((id) => company(id).name);
const top = (metric: Parameters<typeof ranked>[0], n: number, order: "asc" | "desc" = "desc", sector?: string) =>
  ranked(metric, order, sector)
    .slice(0, n)
    .map((c) => c.id);
const above = (id: string, min: number, inclusive = false) =>
  [...holdingsOf(id).entries()].filter(([, p]) => (inclusive ? p >= min : p > min)).map(([child]) => child);
const listedOf = (ids: readonly string[]) => ids.filter((id) => company(id).listed);

export const MARKET_PHRASINGS: readonly MarketPhrasing[] = [
  // ownership, both directions and through chains
  {
    turns: ["Who sits at the top of the ownership chain of JayKay Marketing?"],
    expected: () => ({ contains: names(ultimateOwners("JMSL")).map((n) => `Ultimate owner: ${n}`) }),
  },
  {
    turns: ["Which company ultimately controls Mobitel?"],
    expected: () => ({ contains: names(ultimateOwners("MOBI")) }),
  },
  { turns: ["Who are the shareholders of Haycarb?"], expected: () => ({ contains: names(["HAYL"]) }) },
  {
    turns: ["What does Hayleys hold, directly or indirectly?"],
    expected: () => ({ contains: names([...holdingsOf("HAYL").keys()]) }),
  },
  {
    turns: ["Which companies does Sri Lanka Telecom control?"],
    expected: () => ({ contains: names([...holdingsOf("SLTL").keys()]) }),
  },
  { turns: ["Who owns E-Channelling directly?"], expected: () => ({ contains: [`${company("MOBI").name} holds`] }) },
  {
    turns: ["How many companies does JKH hold stakes in?"],
    expected: () => ({ contains: [`holds stakes in ${holdingsOf("JKH").size} companies`] }),
  },
  // sector aggregates
  {
    turns: ["Which sector earns the most net profit in total?"],
    expected: () => {
      const best = sectorsBy("net_profit", "desc")[0] as { id: string; value: number };
      return { contains: [`highest total net profit: ${sectorName(best.id)} — ${lkr(best.value)}`] };
    },
  },
  {
    turns: ["Rank the sectors by market capitalisation"],
    expected: () => {
      const [first, second] = sectorsBy("market_cap", "desc") as [
        { id: string; value: number },
        { id: string; value: number },
      ];
      return {
        contains: [
          `1. ${sectorName(first.id)} — ${lkr(first.value)}`,
          `2. ${sectorName(second.id)} — ${lkr(second.value)}`,
        ],
      };
    },
  },
  {
    turns: ["Which sector has the lowest average P/E?"],
    expected: () => {
      const low = sectorsBy("pe_ratio", "asc")[0] as { id: string; value: number };
      return { contains: [`lowest average P/E ratio: ${sectorName(low.id)} — ${times(low.value)}`] };
    },
  },
  {
    turns: ["What sector has the highest average dividend yield?"],
    expected: () => {
      const best = sectorsBy("dividend_yield", "desc")[0] as { id: string; value: number };
      return { contains: [`${sectorName(best.id)} — ${pct(best.value)}`] };
    },
  },
  // filters and counts
  {
    turns: ["List companies with a dividend yield above 6%"],
    expected: () => ({
      contains: names(
        listedCompanies()
          .filter((c) => (figure(c.id, "dividend_yield") ?? 0) > 6)
          .map((c) => c.id),
      ),
    }),
  },
  {
    turns: ["Show me firms whose ROE is at least 20%"],
    expected: () => {
      const ids = listedCompanies()
        .filter((c) => (figure(c.id, "roe") ?? -1) >= 20)
        .map((c) => c.id);
      return { contains: [`${ids.length} listed`, ...names(ids)] };
    },
  },
  {
    turns: ["Which companies have revenue over LKR 100 bn?"],
    expected: () => ({
      contains: names(
        listedCompanies()
          .filter((c) => (figure(c.id, "revenue") ?? 0) > 100_000)
          .map((c) => c.id),
      ),
    }),
  },
  {
    turns: ["banks with a market cap below 100,000"],
    expected: () => {
      const ids = listedCompanies("banks")
        .filter((c) => (c.marketCap ?? 0) < 100_000)
        .map((c) => c.id);
      const not = listedCompanies("banks")
        .filter((c) => !ids.includes(c.id))
        .map((c) => c.name);
      return { contains: names(ids), not };
    },
  },
  {
    turns: ["How many companies are in the database?"],
    expected: () => ({ contains: [`holds ${ALL_COMPANIES.length} companies`] }),
  },
  {
    turns: ["How many banks are there?"],
    expected: () => ({
      contains: [`holds ${ALL_COMPANIES.filter((c) => c.sectorId === "banks").length} companies in Banks`],
    }),
  },
  {
    turns: ["How many listed companies are there?"],
    expected: () => ({ contains: [`${listedCompanies().length} of the ${ALL_COMPANIES.length} companies`] }),
  },
  // sums and rankings over named companies
  {
    turns: ["What is the total market cap of Dialog and Sri Lanka Telecom?"],
    expected: () => ({ contains: [lkr(sum(["DIAL", "SLTL"].map((id) => figure(id, "market_cap") as number)))] }),
  },
  {
    turns: ["Average ROE of Commercial Bank, HNB and Sampath"],
    expected: () => ({ contains: [pct(sum(["COMB", "HNB", "SAMP"].map((id) => figure(id, "roe") as number)) / 3)] }),
  },
  {
    turns: ["Which has the highest revenue: Hayleys, LOLC or Melstacorp?"],
    expected: () => {
      const best = ["HAYL", "LOLC", "MELS"].sort(
        (a, b) => (figure(b, "revenue") ?? 0) - (figure(a, "revenue") ?? 0),
      )[0] as string;
      return {
        contains: [
          `Highest revenue among`,
          `: ${company(best).name} (${best}): ${lkr(figure(best, "revenue") as number)}`,
        ],
      };
    },
  },
  // stakes
  {
    turns: ["Companies Hayleys holds a majority stake in"],
    expected: () => ({
      contains: names(above("HAYL", 50)),
      not: names([...holdingsOf("HAYL").keys()].filter((id) => !above("HAYL", 50).includes(id))),
    }),
  },
  {
    turns: ["What is the combined market value of the firms John Keells owns at least 80% of?"],
    expected: () => ({
      contains: [lkr(sum(listedOf(above("JKH", 80, true)).map((id) => figure(id, "market_cap") as number)))],
    }),
  },
  // follow-ups
  {
    turns: ["Top 5 companies by revenue", "Which of them has the best ROE?"],
    expected: () => {
      const five = top("revenue", 5);
      const best = [...five].sort((a, b) => (figure(b, "roe") ?? 0) - (figure(a, "roe") ?? 0))[0] as string;
      return {
        contains: [
          `Highest return on equity among`,
          `: ${company(best).name} (${best}): ${pct(figure(best, "roe") as number)}`,
        ],
      };
    },
  },
  {
    turns: ["List the insurers", "What's their total revenue?"],
    expected: () => {
      const ids = listedCompanies("insurance").map((c) => c.id);
      return { contains: [lkr(sum(ids.map((id) => figure(id, "revenue") ?? 0)))] };
    },
  },
  {
    turns: ["Show the three largest hotels by market cap", "Which of those has the lowest P/E?"],
    expected: () => {
      const three = top("market_cap", 3, "desc", "consumer-services");
      const low = [...three].sort((a, b) => (figure(a, "pe_ratio") ?? 0) - (figure(b, "pe_ratio") ?? 0))[0] as string;
      return { contains: [`Lowest P/E ratio among`, `: ${company(low).name}`] };
    },
  },
  {
    turns: ["What companies does John Keells own?", "What is the total revenue of those companies?"],
    expected: () => {
      const ids = [...holdingsOf("JKH").keys()].filter((id) => figure(id, "revenue") !== null);
      return { contains: [lkr(sum(ids.map((id) => figure(id, "revenue") as number)))] };
    },
  },
  {
    turns: ["top 4 companies by net profit", "what's their average P/E?"],
    expected: () => ({
      contains: [times(sum(top("net_profit", 4).map((id) => figure(id, "pe_ratio") as number)) / 4)],
    }),
  },
  // plain questions
  {
    turns: ["What are the five most valuable companies?"],
    expected: () => ({ contains: top("market_cap", 5).map((id, i) => `${i + 1}. ${company(id).name}`) }),
  },
  {
    turns: ["Which bank has the lowest P/E ratio?"],
    expected: () => {
      const id = top("pe_ratio", 1, "asc", "banks")[0] as string;
      return { contains: [`${company(id).name} (${id}, Banks): ${times(figure(id, "pe_ratio") as number)}`] };
    },
  },
  {
    turns: ["What is the revenue of Dialog Axiata?"],
    expected: () => ({ contains: [`revenue ${lkr(figure("DIAL", "revenue") as number)}`] }),
  },
  {
    turns: ["Smallest three companies by market cap"],
    expected: () => ({ contains: top("market_cap", 3, "asc").map((id, i) => `${i + 1}. ${company(id).name}`) }),
  },
];
