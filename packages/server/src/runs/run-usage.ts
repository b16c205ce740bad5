import { TrellisError } from "@trellis/checkpoint";
import type { ModelPrices, RunUsage, TokenCounts, UsageTally } from "@trellis/core";
import type { RunRecord } from "../stores/run-store.js";

/**
 * Token counts as the Agent Server API shows them (snake_case).
 *
 * @example
 * const run = await client.runs.get(threadId, runId);
 * const byNode: Record<string, WireTokenCounts> = (run.metadata.usage as WireUsage).by_node;
 * console.log(byNode.agent?.total_tokens, byNode.agent?.cost_usd);
 */
export interface WireTokenCounts {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  calls: number;
  cost_usd?: number;
}

/**
 * A run's `metadata.usage` over the API: the totals, `by_node` and `by_model` (`provider:model`), and
 * `cost_usd` where the server's `prices` give a price for every model counted.
 *
 * @example
 * const run = await client.runs.get(threadId, runId);
 * (run.metadata.usage as WireUsage).total_tokens;
 */
export interface WireUsage extends WireTokenCounts {
  by_node: Record<string, WireTokenCounts>;
  by_model: Record<string, WireTokenCounts>;
}

function wireCounts(c: TokenCounts): WireTokenCounts {
  return {
    input_tokens: c.inputTokens,
    output_tokens: c.outputTokens,
    total_tokens: c.totalTokens,
    calls: c.calls,
    ...(c.costUsd !== undefined ? { cost_usd: c.costUsd } : {}),
  };
}

/** A run's usage in the API's shape. @internal */
export function wireUsage(usage: RunUsage): WireUsage {
  const map = (m: Record<string, TokenCounts>) =>
    Object.fromEntries(Object.entries(m).map(([k, c]) => [k, wireCounts(c)]));
  return { ...wireCounts(usage), by_node: map(usage.byNode), by_model: map(usage.byModel) };
}

/**
 * Puts what an attempt's model calls used in the run's metadata (`metadata.usage`), which the executor
 * stores with the run's end, so a client that sees the run end sees its usage. Nothing when no model
 * was called.
 * @internal
 */
export function addRunUsage(run: RunRecord, tally: UsageTally, prices: ModelPrices | undefined): RunUsage | undefined {
  if (tally.calls === 0) return undefined;
  const usage = tally.toJSON(prices);
  run.metadata = { ...run.metadata, usage: wireUsage(usage) };
  return usage;
}

/**
 * Checks the `prices` of a server config: per model id (or `provider:model`, or `*`), US dollars per
 * million input and output tokens. @internal
 */
export function checkPrices(raw: unknown): ModelPrices {
  const fail = (what: string): never => {
    throw new TrellisError(
      "INVALID_CONFIG",
      `the server config: prices ${what} Write { "gpt-4o-mini": { "input": 0.15, "output": 0.6 } }: US dollars per million tokens.`,
    );
  };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return fail("must be an object of models.");
  for (const [model, price] of Object.entries(raw as Record<string, unknown>)) {
    const p = price as Record<string, unknown> | null;
    for (const key of ["input", "output"] as const) {
      const v = p?.[key];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
        fail(`["${model}"].${key} must be a number of 0 or more.`);
    }
  }
  return raw as ModelPrices;
}
