import type { WorkloadResult } from "./runner.js";

/** The compat layer's goals: at most this much slower than native Trellis, and this fraction of LangGraph.js. */
export const COMPAT_GOALS = { vsTrellis: 1.5, vsLangGraph: 0.1 } as const;

/** One workload's medians on the three runtimes of the compat table, and their ratios. */
export interface CompatRow {
  id: string;
  title: string;
  trellisMs: number;
  compatMs: number;
  langgraphMs: number;
  /** compat ÷ native Trellis: what the layer costs, when both run the same program. */
  vsTrellis: number;
  /** The row whose native program is the LangGraph.js one, when this row's is not. */
  sameProgramAs?: string;
  /** compat ÷ LangGraph.js on the same program. */
  vsLangGraph: number;
}

/** The rows of the compat table. */
export function compatRows(results: readonly WorkloadResult[]): CompatRow[] {
  return results.map((w) => {
    const trellisMs = w.results.trellis.medianMs;
    const compatMs = w.results.compat.medianMs;
    const langgraphMs = w.results.langgraph.medianMs;
    return {
      id: w.id,
      title: w.title,
      trellisMs,
      compatMs,
      langgraphMs,
      vsTrellis: compatMs / trellisMs,
      vsLangGraph: compatMs / langgraphMs,
      ...(w.sameProgramAs ? { sameProgramAs: w.sameProgramAs } : {}),
    };
  });
}

/**
 * The compat table as text: medians, the two ratios, and whether each goal is met. The layer's cost
 * (compat ÷ Trellis) is judged only where native Trellis runs the LangGraph.js program itself; a row
 * whose native program differs points to the row that runs the same one.
 */
export function compatTable(rows: readonly CompatRow[]): string {
  const head = ["workload", "Trellis ms", "compat ms", "LangGraph.js ms", "compat/Trellis", "compat/LangGraph"];
  const body = rows.map((r) => [
    r.title,
    r.trellisMs.toFixed(1),
    r.compatMs.toFixed(1),
    r.langgraphMs.toFixed(1),
    `${r.vsTrellis.toFixed(2)}× ${r.sameProgramAs ? `n/a, other program (see ${r.sameProgramAs})` : r.vsTrellis <= COMPAT_GOALS.vsTrellis ? "met" : "MISS"}`,
    `${r.vsLangGraph.toFixed(3)}× ${r.vsLangGraph <= COMPAT_GOALS.vsLangGraph ? "met" : "MISS"}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
