import { type CompiledGraph, channel, END, START, StateGraph } from "@trellis/core";
import type { CompanyGraph } from "../companies/company-graph.js";
import {
  figuresText,
  holdingsText,
  money,
  ownersText,
  profileText,
  rankingText,
  sectorCompaniesText,
  sectorMetricsText,
} from "../companies/company-text.js";
import { planQuestion, type SupervisorTask, type TaskKind } from "./question-plan.js";
import { aggregateText, filterText, sectorRankText, setRankText, stakeFilterText } from "./set-tasks.js";

/** What a worker found for one task. */
export interface Finding {
  taskId: string;
  worker: WorkerName;
  text: string;
}

/** The supervisor's workers, each answering some kinds of task with recursive SQL. */
export type WorkerName = "market_analyst" | "ownership_analyst" | "financial_analyst" | "company_profiler";

const WORKER_OF: Record<TaskKind, WorkerName> = {
  rank: "market_analyst",
  sector_rank: "market_analyst",
  filter: "market_analyst",
  aggregate: "financial_analyst",
  stake_filter: "ownership_analyst",
  sector_companies: "market_analyst",
  holdings: "ownership_analyst",
  owners: "ownership_analyst",
  sector_metrics: "financial_analyst",
  company_metrics: "financial_analyst",
  profile: "company_profiler",
  not_in_data: "company_profiler",
};

/** The supervisor's state. `iteration_count` counts the tasks handed to workers. */
export const supervisorSchema = {
  question: channel.value(""),
  tasks: channel.value<SupervisorTask[]>([]),
  current_task: channel.value(""),
  next: channel.value<WorkerName | "compose_answer">("compose_answer"),
  findings: channel.append<Finding>(),
  iteration_count: channel.value(0),
  max_iterations: channel.value(10),
  answer: channel.value(""),
};

type SupervisorState = {
  question: string;
  tasks: SupervisorTask[];
  current_task: string;
  next: WorkerName | "compose_answer";
  findings: Finding[];
  iteration_count: number;
  max_iterations: number;
  answer: string;
};

/**
 * The supervisor subgraph behind `query_graph_database`: `understand` plans the question into tasks,
 * `supervisor` hands each task to the worker that owns its kind (at most `max_iterations` times), the
 * workers query the company graph, and `compose_answer` writes the answer from their findings.
 *
 * ```
 * START → understand → supervisor ⇄ market_analyst | ownership_analyst | financial_analyst | company_profiler
 *                      supervisor → compose_answer → END
 * ```
 *
 * @example
 * const supervisor = buildSupervisorGraph(new CompanyGraph(db));
 * const { answer } = await supervisor.invoke({ question: "Who owns Ceylon Cold Stores?" });
 */
export function buildSupervisorGraph(companies: CompanyGraph): CompiledGraph<typeof supervisorSchema> {
  const worker = (name: WorkerName) => async (state: SupervisorState) => {
    const task = state.tasks.find((t) => t.id === state.current_task);
    if (!task) return {};
    return { findings: [{ taskId: task.id, worker: name, text: await runTask(companies, task) }] };
  };
  return new StateGraph(supervisorSchema, { name: "supervisor", input: ["question", "max_iterations"] })
    .addNode("understand", async (state) => ({
      tasks: planQuestion(state.question, await companies.directory()),
      iteration_count: 0,
    }))
    .addNode("supervisor", supervise)
    .addNode("market_analyst", worker("market_analyst"))
    .addNode("ownership_analyst", worker("ownership_analyst"))
    .addNode("financial_analyst", worker("financial_analyst"))
    .addNode("company_profiler", worker("company_profiler"))
    .addNode("compose_answer", async (state) => ({ answer: await compose(companies, state) }))
    .addEdge(START, "understand")
    .addEdge("understand", "supervisor")
    .addConditionalEdges("supervisor", (state) => state.next, [
      "market_analyst",
      "ownership_analyst",
      "financial_analyst",
      "company_profiler",
      "compose_answer",
    ])
    .addEdge("market_analyst", "supervisor")
    .addEdge("ownership_analyst", "supervisor")
    .addEdge("financial_analyst", "supervisor")
    .addEdge("company_profiler", "supervisor")
    .addEdge("compose_answer", END)
    .compile();
}

/** Picks the next unanswered task and its worker, or the answer when none is left or the cap is hit. */
function supervise(state: SupervisorState) {
  const done = new Set(state.findings.map((f) => f.taskId));
  const pending = state.tasks.find((t) => !done.has(t.id));
  if (!pending || state.iteration_count >= state.max_iterations) return { next: "compose_answer" as const };
  return { next: WORKER_OF[pending.kind], current_task: pending.id, iteration_count: state.iteration_count + 1 };
}

async function runTask(companies: CompanyGraph, task: SupervisorTask): Promise<string> {
  const { currency, companies: known, sectors } = await companies.directory();
  const companyName = (id: string) => known.find((c) => c.id === id)?.name ?? id;
  const sectorName = (id: string) => sectors.find((s) => s.id === id)?.name ?? id;
  switch (task.kind) {
    case "rank": {
      if (task.companyIds) return setRankText(companies, { ...task, companyIds: task.companyIds }, currency);
      const rows = await companies.rank(task);
      return rankingText(rows, {
        metric: task.metric,
        order: task.order,
        limit: task.limit,
        currency,
        ...(task.sectorId ? { sectorName: sectorName(task.sectorId) } : {}),
      });
    }
    case "sector_rank":
      return sectorRankText(companies, task, currency);
    case "filter":
      return filterText(companies, task, {
        currency,
        ...(task.sectorId ? { scope: `in ${sectorName(task.sectorId)}` } : {}),
        ...(task.companyIds ? { scope: `among ${task.companyIds.map(companyName).join(", ")}` } : {}),
      });
    case "aggregate":
      return aggregateText(companies, task, currency);
    case "stake_filter":
      return stakeFilterText(companies, { ...task, holder: companyName(task.companyId) }, currency);
    case "sector_companies":
      return sectorCompaniesText(
        sectorName(task.sectorId),
        await companies.rank({ metric: "market_cap", limit: 50, sectorId: task.sectorId }),
        currency,
      );
    case "holdings":
      return holdingsText(companyName(task.companyId), await companies.holdings(task.companyId), currency);
    case "owners":
      return ownersText(companyName(task.companyId), await companies.owners(task.companyId));
    case "sector_metrics": {
      const metrics = await companies.sectorMetrics(task.sectorId);
      return metrics ? sectorMetricsText(metrics, currency) : `No sector "${task.sectorId}" in the database.`;
    }
    case "company_metrics": {
      const profile = await companies.profile(task.companyId);
      if (!profile) return `No company "${task.companyId}" in the database.`;
      const c = profile.company;
      if (c.fiscalYear === null) return `${c.name} has no financial figures in the database (it is not listed).`;
      return `Financial metrics of ${c.name} (${c.sector}), FY${c.fiscalYear}: market cap ${money(c.marketCap, currency)}, ${figuresText(c, currency)}.`;
    }
    case "not_in_data": {
      const names = task.companyIds.map(companyName);
      const about = names.length > 0 ? ` for ${names.join(" or ")}` : "";
      return (
        `The database does not hold ${task.what}${about}, so I cannot answer that. For each listed company it ` +
        "holds the market capitalisation and the latest fiscal year's revenue, net profit, total assets, ROE, " +
        "P/E ratio and dividend yield, and who owns whom."
      );
    }
    case "profile": {
      const profile = await companies.profile(task.companyId);
      return profile ? profileText(profile, currency) : `No company "${task.companyId}" in the database.`;
    }
  }
}

async function compose(companies: CompanyGraph, state: SupervisorState): Promise<string> {
  const directory = await companies.directory();
  const footer = directory.notice ? `\n\n(${directory.notice})` : "";
  if (state.tasks.length === 0) {
    const sectors = directory.sectors.map((s) => s.name).join(", ");
    const examples = directory.companies
      .filter((c) => c.listed)
      .slice(0, 4)
      .map((c) => c.name)
      .join(", ");
    return (
      `I could not match "${state.question}" to the company database. It holds ${directory.companies.length} ` +
      `companies (e.g. ${examples}) in these sectors: ${sectors}. Ask for the largest companies by market cap ` +
      "(or revenue, profit, ROE, dividend yield), a company's profile, what a company owns, who owns a company, " +
      `or the financial metrics of a sector or a company.${footer}`
    );
  }
  const texts = state.tasks.flatMap((t) => state.findings.filter((f) => f.taskId === t.id).map((f) => f.text));
  const missing = state.tasks.length - new Set(state.findings.map((f) => f.taskId)).size;
  const stopped =
    missing > 0
      ? `\n\n(Stopped after ${state.iteration_count} steps, the limit: ${missing} of ${state.tasks.length} parts of the question are unanswered.)`
      : "";
  return `${texts.join("\n\n")}${stopped}${footer}`;
}

/** Options of {@link runSupervisorQuery}. */
export interface SupervisorQueryOptions {
  /** Most tasks handed to workers. Default 10, as in the seed. */
  maxIterations?: number;
  signal?: AbortSignal;
}

/** What {@link runSupervisorQuery} returns: the answer and how it was reached. */
export interface SupervisorResult {
  answer: string;
  tasks: SupervisorTask[];
  findings: Finding[];
  iterations: number;
}

/**
 * Runs the supervisor on one question. Called inside a running node (the `tools` node) it runs as
 * that node's subgraph.
 *
 * @example
 * const { answer } = await runSupervisorQuery(supervisor, "Top 5 companies by market cap");
 */
export async function runSupervisorQuery(
  supervisor: CompiledGraph<typeof supervisorSchema>,
  userQuery: string,
  options: SupervisorQueryOptions = {},
): Promise<SupervisorResult> {
  const maxIterations = options.maxIterations ?? 10;
  const result = await supervisor.invoke(
    { question: userQuery, max_iterations: maxIterations },
    { recursionLimit: 2 * maxIterations + 6, ...(options.signal ? { signal: options.signal } : {}) },
  );
  return {
    answer: result.answer,
    tasks: result.tasks,
    findings: result.findings,
    iterations: result.iteration_count,
  };
}
