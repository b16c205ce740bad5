import type { Run } from "./api-types.js";

/** What the model calls of a thread's runs used, added up from each run's `metadata.usage`. */
export interface ThreadUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  calls: number;
  runs: number;
  /** Undefined unless every counted run had a cost (the server's `prices` cover its models). */
  costUsd: number | undefined;
  /** Tokens per node, over the runs. */
  byNode: Array<{ node: string; totalTokens: number; calls: number }>;
}

interface WireCounts {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  calls?: number;
  cost_usd?: number;
}

/**
 * The thread's usage over the runs listed, or undefined when none called a model.
 *
 * @example
 * const usage = threadUsage(await api.runs(threadId));
 */
export function threadUsage(runs: readonly Run[]): ThreadUsage | undefined {
  let total: ThreadUsage | undefined;
  const nodes = new Map<string, { totalTokens: number; calls: number }>();
  for (const run of runs) {
    const u = run.metadata?.usage as (WireCounts & { by_node?: Record<string, WireCounts> }) | undefined;
    if (!u || typeof u.calls !== "number") continue;
    const t = total ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0, runs: 0, costUsd: 0, byNode: [] };
    t.inputTokens += u.input_tokens ?? 0;
    t.outputTokens += u.output_tokens ?? 0;
    t.totalTokens += u.total_tokens ?? 0;
    t.calls += u.calls;
    t.runs += 1;
    t.costUsd = t.costUsd !== undefined && u.cost_usd !== undefined ? t.costUsd + u.cost_usd : undefined;
    for (const [node, c] of Object.entries(u.by_node ?? {})) {
      const n = nodes.get(node) ?? { totalTokens: 0, calls: 0 };
      n.totalTokens += c.total_tokens ?? 0;
      n.calls += c.calls ?? 0;
      nodes.set(node, n);
    }
    total = t;
  }
  if (total)
    total.byNode = [...nodes].map(([node, n]) => ({ node, ...n })).sort((a, b) => b.totalTokens - a.totalTokens);
  return total;
}

/**
 * One line saying what a thread's model calls used.
 *
 * @example
 * usageText(usage); // "4,050 tokens (3,500 in · 550 out) in 3 model calls over 2 runs · ≈ $0.0107"
 */
export function usageText(u: ThreadUsage): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const calls = `${u.calls} model call${u.calls === 1 ? "" : "s"}`;
  const runs = `${u.runs} run${u.runs === 1 ? "" : "s"}`;
  const cost = u.costUsd !== undefined ? ` · ≈ $${Number(u.costUsd.toPrecision(3))}` : "";
  return `${n(u.totalTokens)} tokens (${n(u.inputTokens)} in · ${n(u.outputTokens)} out) in ${calls} over ${runs}${cost}`;
}
