import { createReactAgent } from "@trellis/agents";
import { type ChatModel, type Message, type Tool, tool, userMessage } from "@trellis/models";
import { z } from "zod";
import type { CompanyDirectory, CompanyGraph, RankMetric } from "../companies/company-graph.js";
import {
  figuresText,
  holdingsText,
  money,
  ownersText,
  profileText,
  rankingText,
  sectorMetricsText,
} from "../companies/company-text.js";
import { findEntities } from "../companies/entity-matcher.js";

const METRICS = [
  "market_cap",
  "revenue",
  "net_profit",
  "total_assets",
  "roe",
  "pe_ratio",
  "dividend_yield",
] as const satisfies readonly RankMetric[];

/**
 * The company-graph tools of the LLM supervisor: each runs one (recursive) SQL query of
 * {@link CompanyGraph} and returns its result as text. Companies and sectors are named as the user
 * names them ("John Keells", "JKH", "banks"); a name the database does not know is answered with the
 * names it does.
 *
 * @example
 * const tools = createCompanyGraphTools(companies);
 * tools.map((t) => t.name); // ["rank_companies", "company_profile", "company_metrics", "company_holdings", …]
 */
export function createCompanyGraphTools(companies: CompanyGraph): Tool[] {
  const company = z.string().min(1).describe("The company's name, alias or ticker, as the user wrote it");
  const sector = z.string().min(1).describe('A sector, e.g. "banks", "telecommunication", "financials"');
  const resolve = async (name: string, kind: "company" | "sector") => {
    const directory = await companies.directory();
    const list = kind === "company" ? directory.companies : directory.sectors;
    const exact = list.find((e) => e.id.toLowerCase() === name.trim().toLowerCase());
    const found = findEntities(name, directory);
    const id = exact?.id ?? (kind === "company" ? found.companies[0]?.id : found.sectors[0]?.id);
    if (id === undefined) throw new Error(unknown(name, kind, directory));
    return { id, name: list.find((e) => e.id === id)?.name ?? id, directory };
  };
  return [
    tool({
      name: "rank_companies",
      description:
        "List listed companies ordered by a metric, highest first (order desc) or lowest first (order asc), " +
        "optionally within a sector and its sub-sectors. Metrics: market_cap, revenue, net_profit, " +
        "total_assets, roe, pe_ratio, dividend_yield (latest fiscal year).",
      schema: z.object({
        metric: z.enum(METRICS),
        order: z.enum(["desc", "asc"]).default("desc"),
        limit: z.number().int().min(1).max(20).default(5),
        sector: sector.optional(),
      }),
      fn: async ({ metric, order, limit, sector: sectorName }) => {
        const scope = sectorName === undefined ? undefined : await resolve(sectorName, "sector");
        const { currency } = await companies.directory();
        const rows = await companies.rank({ metric, order, limit, ...(scope ? { sectorId: scope.id } : {}) });
        return rankingText(rows, { metric, order, limit, currency, ...(scope ? { sectorName: scope.name } : {}) });
      },
    }),
    tool({
      name: "company_profile",
      description: "A company's sector, market capitalisation and rank, latest figures, direct owners and holdings.",
      schema: z.object({ company }),
      fn: async (args) => {
        const { id, directory } = await resolve(args.company, "company");
        const profile = await companies.profile(id);
        return profile ? profileText(profile, directory.currency) : `No company "${id}" in the database.`;
      },
    }),
    tool({
      name: "company_metrics",
      description:
        "A company's latest fiscal year figures: revenue, net profit, total assets, ROE, P/E, dividend yield.",
      schema: z.object({ company }),
      fn: async (args) => {
        const { id, directory } = await resolve(args.company, "company");
        const c = (await companies.profile(id))?.company;
        if (!c) return `No company "${id}" in the database.`;
        if (c.fiscalYear === null) return `${c.name} has no financial figures in the database (it is not listed).`;
        return `Financial metrics of ${c.name} (${c.sector}), FY${c.fiscalYear}: market cap ${money(c.marketCap, directory.currency)}, ${figuresText(c, directory.currency)}.`;
      },
    }),
    tool({
      name: "company_holdings",
      description:
        "Everything a company holds, directly and through its subsidiaries (walked recursively), with direct " +
        "and effective ownership percentages.",
      schema: z.object({ company }),
      fn: async (args) => {
        const { id, name, directory } = await resolve(args.company, "company");
        return holdingsText(name, await companies.holdings(id), directory.currency);
      },
    }),
    tool({
      name: "company_owners",
      description: "Who holds a company, directly and up the chain to its ultimate owners, with effective percentages.",
      schema: z.object({ company }),
      fn: async (args) => {
        const { id, name } = await resolve(args.company, "company");
        return ownersText(name, await companies.owners(id));
      },
    }),
    tool({
      name: "sector_metrics",
      description: "Totals and averages over a sector and its sub-sectors, then each listed company's figures.",
      schema: z.object({ sector }),
      fn: async (args) => {
        const { id, directory } = await resolve(args.sector, "sector");
        const metrics = await companies.sectorMetrics(id);
        return metrics ? sectorMetricsText(metrics, directory.currency) : `No sector "${id}" in the database.`;
      },
    }),
  ];
}

function unknown(name: string, kind: "company" | "sector", directory: CompanyDirectory): string {
  const names =
    kind === "company"
      ? directory.companies.map((c) => `${c.name} (${c.id})`)
      : directory.sectors.map((s) => `${s.name} (${s.id})`);
  return `No ${kind} named "${name}" in the database. Its ${kind === "company" ? "companies" : "sectors"}: ${names.join(", ")}.`;
}

/** The LLM supervisor's instructions. */
export function llmSupervisorPrompt(currency: string): string {
  return [
    "You are the supervisor of a graph database of listed companies: sectors (a tree), ownership stakes between",
    "companies (a weighted graph), market capitalisation and the latest fiscal year's revenue, net profit, total",
    "assets, ROE, P/E ratio and dividend yield. Answer the question with the tools: call as many as the question",
    "needs (one per company or sector to compare), then answer from their results only.",
    `Money amounts are in millions of ${currency}. Never state a figure, ranking or stake that no tool returned.`,
    "When the database does not hold what is asked (share prices, debt, employees, several years…), say so plainly",
    "instead of answering with another figure. Reply with the answer only.",
  ].join(" ");
}

/** Options of {@link buildLlmSupervisor}. */
export interface LlmSupervisorOptions {
  /** Most model turns per question. Default 10, as the seed's supervisor. */
  maxIterations?: number;
  temperature?: number;
}

/**
 * The supervisor as the seed designs it once a real model is configured: an LLM agent whose tools
 * query the company graph with recursive SQL ({@link createCompanyGraphTools}).
 *
 * @example
 * const supervisor = buildLlmSupervisor(companies, model, (await companies.directory()).currency);
 * const answer = await runLlmSupervisorQuery(supervisor, "Who owns Ceylon Cold Stores?");
 */
export function buildLlmSupervisor(
  companies: CompanyGraph,
  model: ChatModel,
  currency: string,
  options: LlmSupervisorOptions = {},
): ReturnType<typeof createReactAgent> {
  return createReactAgent({
    model,
    tools: createCompanyGraphTools(companies),
    prompt: llmSupervisorPrompt(currency),
    maxIterations: options.maxIterations ?? 10,
    name: "llm_supervisor",
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
  });
}

/**
 * Asks the LLM supervisor one question; its answer is the last assistant message. Called inside a
 * running node it runs as that node's subgraph.
 *
 * @example
 * await runLlmSupervisorQuery(supervisor, "Which bank is the most profitable?");
 */
export async function runLlmSupervisorQuery(
  supervisor: ReturnType<typeof buildLlmSupervisor>,
  question: string,
  options: { signal?: AbortSignal; maxIterations?: number } = {},
): Promise<string> {
  const result = await supervisor.invoke(
    { messages: [userMessage(question)] },
    {
      recursionLimit: 2 * (options.maxIterations ?? 10) + 5,
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  const messages = result.messages as Message[];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "assistant" && m.content.trim() !== "") return m.content;
  }
  return "";
}
