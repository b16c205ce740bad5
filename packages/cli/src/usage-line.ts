/** Token totals of a CLI session: the usage of each of its runs, added up. @internal */
export interface SessionUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  calls: number;
  /** Undefined as soon as one run had no cost (no price for one of its models). */
  costUsd: number | undefined;
}

/** Adds a run's `metadata.usage` (absent when it called no model) to the session's. @internal */
export function addUsage(total: SessionUsage | undefined, usage: unknown): SessionUsage | undefined {
  const u = usage as
    | { input_tokens?: number; output_tokens?: number; total_tokens?: number; calls?: unknown; cost_usd?: number }
    | undefined;
  if (!u || typeof u.calls !== "number") return total;
  const base = total ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0, costUsd: 0 };
  return {
    inputTokens: base.inputTokens + (u.input_tokens ?? 0),
    outputTokens: base.outputTokens + (u.output_tokens ?? 0),
    totalTokens: base.totalTokens + (u.total_tokens ?? 0),
    calls: base.calls + u.calls,
    costUsd: base.costUsd !== undefined && u.cost_usd !== undefined ? base.costUsd + u.cost_usd : undefined,
  };
}

/**
 * The line `trellis run` ends with when models were called.
 *
 * @example
 * usageLine({ inputTokens: 3500, outputTokens: 550, totalTokens: 4050, calls: 3, costUsd: 0.0107 });
 * // "  Tokens: 4,050 (3,500 in · 550 out) in 3 model calls · ≈ $0.0107"
 */
export function usageLine(u: SessionUsage): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const calls = `${u.calls} model call${u.calls === 1 ? "" : "s"}`;
  const cost = u.costUsd !== undefined ? ` · ≈ $${Number(u.costUsd.toPrecision(3))}` : "";
  return `  Tokens: ${n(u.totalTokens)} (${n(u.inputTokens)} in · ${n(u.outputTokens)} out) in ${calls}${cost}`;
}
