import type { WorkloadResult } from "./runner.js";

function ms(value: number): string {
  if (!Number.isFinite(value)) return "—";
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return "—";
  const r = a / b;
  return r >= 10 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(3);
}

/** Bytes in KiB or MiB. */
export function bytes(value: number | undefined): string {
  if (value === undefined) return "—";
  if (value >= 1024 * 1024) return `${(value / (1024 * 1024)).toFixed(1)} MiB`;
  if (value >= 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${value} B`;
}

function mib(value: number): string {
  return `${Math.round(value / (1024 * 1024))}`;
}

function table(header: readonly string[], rows: readonly string[][], align: readonly ("l" | "r")[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const cell = (text: string, i: number) =>
    align[i] === "l" ? text.padEnd(widths[i] ?? 0) : text.padStart(widths[i] ?? 0);
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (align[i] === "l" ? ` ${"-".repeat(w)} ` : ` ${"-".repeat(w - 1)}: `)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** The main table, as Markdown. */
export function resultsTable(results: readonly WorkloadResult[]): string {
  const header = [
    "workload",
    "Trellis ms",
    "LangGraph ms",
    "T / LG",
    "floor ms",
    "T / floor",
    "RSS T MiB",
    "RSS LG MiB",
    "stored T",
    "stored LG",
  ];
  const rows = results.map((w) => {
    const t = w.results.trellis;
    const lg = w.results.langgraph;
    const f = w.results.floor;
    return [
      w.title,
      ms(t.medianMs),
      ms(lg.medianMs),
      ratio(t.medianMs, lg.medianMs),
      ms(f.medianMs),
      ratio(t.medianMs, f.medianMs),
      mib(t.peakRssBytes),
      mib(lg.peakRssBytes),
      bytes(t.storedBytes),
      bytes(lg.storedBytes),
    ];
  });
  return table(header, rows, ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"]);
}

/** Time per unit of work (node, task, thread…), in microseconds. */
export function perUnitTable(results: readonly WorkloadResult[]): string {
  const rows = results
    .filter((w) => w.units)
    .map((w) => {
      const u = w.units as { count: number; name: string };
      const per = (value: number) => ((value * 1000) / u.count).toFixed(1);
      return [
        w.title,
        `${u.count} ${u.name}s`,
        per(w.results.trellis.medianMs),
        per(w.results.langgraph.medianMs),
        per(w.results.floor.medianMs),
      ];
    });
  return table(["workload", "units", "Trellis µs/unit", "LangGraph µs/unit", "floor µs/unit"], rows, [
    "l",
    "r",
    "r",
    "r",
    "r",
  ]);
}

/** Floors below this many milliseconds are too small for "within 3× of the floor" to mean anything. */
export const FLOOR_MEASURABLE_MS = 1;

/** One goal of the issue, checked against a run. */
export interface GoalCheck {
  goal: string;
  measured: string;
  met: boolean | undefined;
}

/** Checks the issue's goals against the results. */
export function checkGoals(results: readonly WorkloadResult[]): GoalCheck[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  const r = (id: string) => {
    const w = byId.get(id);
    return w ? w.results.trellis.medianMs / w.results.langgraph.medianMs : undefined;
  };
  const checks: GoalCheck[] = [];
  const ratioGoal = (goal: string, id: string, limit: number) => {
    const value = r(id);
    if (byId.has(id))
      checks.push({ goal, measured: value?.toFixed(3) ?? "—", met: value !== undefined && value <= limit });
  };
  ratioGoal("(a) per node, no saver: T/LG ≤ 0.1", "a-chain/none", 0.1);
  ratioGoal("(a) per node, memory saver: T/LG ≤ 0.1", "a-chain/memory", 0.1);
  const perNodeGoal = (goal: string, id: string, limitUs: number) => {
    const w = byId.get(id);
    if (!w?.units) return;
    const us = (w.results.trellis.medianMs * 1000) / w.units.count;
    checks.push({ goal, measured: `${us.toFixed(2)} µs`, met: us <= limitUs });
  };
  perNodeGoal("(a) per node, no saver: ≤ 3 µs", "a-chain/none", 3);
  perNodeGoal("(a) per node, memory saver, fresh thread: ≤ 5 µs", "a-chain/memory", 5);
  perNodeGoal("(a) per node, memory saver, one thread: ≤ 5 µs", "a-chain/memory-thread", 5);
  ratioGoal("(b) agent, memory saver: T/LG ≤ 0.1", "b-agent/memory", 0.1);
  ratioGoal("(b) agent, SQLite saver: T/LG ≤ 0.1", "b-agent/sqlite", 0.1);
  ratioGoal("(b) agent, SQLite sync=FULL: T/LG ≤ 0.1", "b-agent/sqlite-full", 0.1);
  for (const id of ["b-agent/memory", "b-agent/sqlite", "b-agent/sqlite-full"]) {
    const w = byId.get(id);
    const stored = w?.results.trellis.storedBytes;
    const state = w?.results.trellis.stateBytes;
    if (w && stored !== undefined && state !== undefined) {
      const x = stored / state;
      const lg = (w.results.langgraph.storedBytes ?? 0) / state;
      checks.push({
        goal: `(b) ${w.saver} stored bytes ≤ 1.25 × final state (${bytes(state)})`,
        measured: `${x.toFixed(2)}× (LangGraph ${lg.toFixed(1)}×)`,
        met: x <= 1.25,
      });
    }
  }
  ratioGoal("(c) fan-out 3,000: T/LG ≤ 0.05", "c-fanout/3000", 0.05);
  const small = byId.get("c-fanout/100");
  const big = byId.get("c-fanout/3000");
  if (small && big) {
    const perSmall = small.results.trellis.medianMs / 100;
    const perBig = big.results.trellis.medianMs / 3000;
    checks.push({
      goal: "(c) flat cost per task, 100 → 3,000 (≤ 1.5× growth)",
      measured: `${(perSmall * 1000).toFixed(1)} → ${(perBig * 1000).toFixed(1)} µs (${(perBig / perSmall).toFixed(2)}×)`,
      met: perBig / perSmall <= 1.5,
    });
  }
  ratioGoal("(e) resume, memory saver: T/LG ≤ 0.2", "e-resume/memory", 0.2);
  ratioGoal("(e) resume, SQLite saver: T/LG ≤ 0.1", "e-resume/sqlite", 0.1);
  ratioGoal("(e) resume, SQLite sync=FULL: T/LG ≤ 0.2", "e-resume/sqlite-full", 0.2);
  ratioGoal("(g) wide_dict, no saver: T/LG ≤ 0.1", "g-wide-dict/none", 0.1);
  ratioGoal("(g) wide_dict, memory saver: T/LG ≤ 0.1", "g-wide-dict/memory", 0.1);
  for (const w of results) {
    const floor = w.results.floor.medianMs;
    const x = w.results.trellis.medianMs / floor;
    // A floor under a millisecond is a handful of function calls: no runtime can be within 3× of it.
    const measurable = floor >= FLOOR_MEASURABLE_MS;
    checks.push({
      goal: `within 3× of the floor: ${w.title}`,
      measured: `${x.toFixed(1)}×${measurable ? "" : ` (floor ${ms(floor)} ms)`}`,
      met: measurable ? x <= 3 : undefined,
    });
  }
  return checks;
}

/** The goal checks as a Markdown table. */
export function goalsTable(checks: readonly GoalCheck[]): string {
  return table(
    ["goal", "measured", "met"],
    checks.map((c) => [c.goal, c.measured, c.met === undefined ? "n/a" : c.met ? "yes" : "no"]),
    ["l", "r", "l"],
  );
}
