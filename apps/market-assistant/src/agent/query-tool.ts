import { type CompiledGraph, isControlFlowSignal } from "@trellis/core";
import { type Tool, tool } from "@trellis/models";
import { z } from "zod";
import type { Logger } from "../logger.js";
import { type buildLlmSupervisor, runLlmSupervisorQuery } from "../supervisor/llm-supervisor.js";
import { runSupervisorQuery, type supervisorSchema } from "../supervisor/supervisor-graph.js";

type LlmSupervisor = ReturnType<typeof buildLlmSupervisor>;

/** Options of {@link createQueryGraphDatabaseTool}. */
export interface QueryToolOptions {
  /** The keyword-planner supervisor: the offline model's. */
  supervisor: CompiledGraph<typeof supervisorSchema>;
  /**
   * The LLM supervisor (a real model is configured): answers instead of the planner, and its answer
   * gets the dataset's `notice`.
   */
  llmSupervisor?: { agent: LlmSupervisor; notice: string };
  /** Most tasks the supervisor hands out per query. Default 10 (hardcoded in the seed). */
  maxIterations?: number;
  logger?: Logger;
}

/** The name the model calls the tool by. */
export const QUERY_TOOL_NAME = "query_graph_database";

/**
 * The seed's `query_graph_database` tool: runs the supervisor subgraph on a natural-language question
 * and returns its answer. When the supervisor fails (the database is down, a query breaks), the tool
 * logs the error and returns a message telling the model what happened and what to try, instead of
 * failing the run.
 *
 * @example
 * const queryTool = createQueryGraphDatabaseTool({ supervisor: buildSupervisorGraph(companies) });
 * builder.addNode("tools", createToolNode([queryTool]));
 */
export function createQueryGraphDatabaseTool(options: QueryToolOptions): Tool {
  return tool({
    name: QUERY_TOOL_NAME,
    description:
      "Execute a natural-language query against the graph database of listed companies: companies, sectors, " +
      "subsidiaries and ownership percentages, market capitalisation and financial metrics (revenue, net profit, " +
      "total assets, ROE, P/E, dividend yield). Ask one focused question per call.",
    schema: z.object({
      query: z.string().min(1).describe("The question, in plain English, naming the companies or sectors it is about"),
    }),
    fn: async ({ query }, ctx) => {
      try {
        const runOptions = {
          maxIterations: options.maxIterations ?? 10,
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        };
        if (options.llmSupervisor) {
          const answer = await runLlmSupervisorQuery(options.llmSupervisor.agent, query, runOptions);
          if (!answer) return "No answer generated";
          return options.llmSupervisor.notice ? `${answer}\n\n(${options.llmSupervisor.notice})` : answer;
        }
        const result = await runSupervisorQuery(options.supervisor, query, runOptions);
        return result.answer || "No answer generated";
      } catch (error) {
        if (isControlFlowSignal(error) || ctx.signal?.aborted) throw error;
        const reason = error instanceof Error ? error.message : String(error);
        options.logger?.error(`query_graph_database failed for "${query}": ${reason}`);
        return (
          `The company database could not answer "${query}" right now (${reason}). ` +
          "Tell the user the data is temporarily unavailable and suggest trying again shortly; " +
          "do not guess figures."
        );
      }
    },
  });
}
