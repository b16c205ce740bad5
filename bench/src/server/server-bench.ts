import { TICKS } from "./graphs.js";
import { hitlLatencies, runsPerSecond, sseFanOut } from "./scenarios.js";
import { hasLangGraphApi, type ServerKind, startTarget, type Target } from "./targets.js";

/** In-flight levels of (ii). */
export const IN_FLIGHT = [1, 8, 64] as const;
/** Subscribers of (iii). */
export const SUBSCRIBERS = 100;

/** One server's numbers: one value per round, in round order. */
export interface ServerResult {
  /** (i) p50 and p99 of each round's conversations, ms. */
  p50Ms: number[];
  p99Ms: number[];
  /** (ii) runs per second at each in-flight level. */
  runsPerSecond: Record<number, number[]>;
  /** (iii) events per second to {@link SUBSCRIBERS} subscribers. */
  eventsPerSecond: number[];
  /** The server's RSS after each round, bytes, and the runs it had served by then. */
  rss: Array<{ bytes: number; runs: number }>;
}

export interface ServerBenchResult {
  rounds: number;
  conversations: number;
  runsPerLevel: number;
  servers: Partial<Record<ServerKind, ServerResult>>;
  /** Why LangGraph's dev server has no column, when it has none. */
  langgraphSkipped: string | undefined;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Runs the server bench: each server in its own process, warmed up, then `rounds` rounds in which each
 * server runs every scenario once, the order rotating every round.
 */
export async function runServerBench(options: {
  quick: boolean;
  tmpDir: string;
  langgraphDir: string | undefined;
  log: (line: string) => void;
}): Promise<ServerBenchResult> {
  const rounds = options.quick ? 2 : 4;
  const conversations = options.quick ? 40 : 200;
  const runsPerLevel = options.quick ? 128 : 512;
  const kinds: ServerKind[] = ["trellis", "floor"];
  let langgraphSkipped: string | undefined;
  if (hasLangGraphApi(options.langgraphDir)) kinds.push("langgraph");
  else
    langgraphSkipped = options.langgraphDir
      ? `no @langchain/langgraph-api under ${options.langgraphDir}`
      : "no --langgraph-api DIR given";
  const targets: Target[] = [];
  const servers: Partial<Record<ServerKind, ServerResult>> = {};
  try {
    for (const kind of kinds) {
      targets.push(await startTarget(kind, options.tmpDir, options.langgraphDir));
      servers[kind] = {
        p50Ms: [],
        p99Ms: [],
        runsPerSecond: Object.fromEntries(IN_FLIGHT.map((n) => [n, []])),
        eventsPerSecond: [],
        rss: [],
      };
    }
    for (const t of targets) {
      await hitlLatencies(t.url, options.quick ? 5 : 20);
      await runsPerSecond(t.url, 8, 32);
      await sseFanOut(t.url, 10, TICKS);
      options.log(`  ${t.kind}: warmed up at ${t.url}`);
    }
    for (let round = 0; round < rounds; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length] as Target);
      for (const t of order) {
        const r = servers[t.kind] as ServerResult;
        // LangGraph's dev server takes ~1 s a run (its queue polls), so it gets fewer of them
        const slow = t.kind === "langgraph";
        const talks = slow ? Math.min(conversations, 20) : conversations;
        const samples = await hitlLatencies(t.url, talks);
        let runs = talks * 3 + 1;
        r.p50Ms.push(percentile(samples, 50));
        r.p99Ms.push(percentile(samples, 99));
        for (const n of IN_FLIGHT) {
          const total = slow ? Math.max(n, Math.min(runsPerLevel, 64)) : runsPerLevel;
          r.runsPerSecond[n]?.push(await runsPerSecond(t.url, n, total));
          runs += total;
        }
        r.eventsPerSecond.push((await sseFanOut(t.url, SUBSCRIBERS, TICKS)).eventsPerSecond);
        const bytes = t.rssBytes();
        if (bytes !== undefined) r.rss.push({ bytes, runs: (r.rss.at(-1)?.runs ?? 0) + runs });
        const rps = IN_FLIGHT.map((n) => r.runsPerSecond[n]?.at(-1)?.toFixed(0)).join("/");
        options.log(
          `  round ${round + 1}/${rounds} ${t.kind}: p50 ${r.p50Ms.at(-1)?.toFixed(1)} ms, p99 ${r.p99Ms.at(-1)?.toFixed(1)} ms, runs/s ${rps}, events/s ${r.eventsPerSecond.at(-1)?.toFixed(0)}, RSS ${((bytes ?? 0) / 2 ** 20).toFixed(0)} MiB`,
        );
      }
    }
  } finally {
    for (const t of targets) await t.stop();
  }
  return { rounds, conversations, runsPerLevel, servers, langgraphSkipped };
}

function median(values: readonly number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function cell(values: readonly number[] | undefined, digits: number): string {
  if (!values || values.length === 0) return "—";
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return `${median(values).toFixed(digits)} (${lo.toFixed(digits)}–${hi.toFixed(digits)})`;
}

function ratio(t: readonly number[] | undefined, f: readonly number[] | undefined, invert: boolean): string {
  if (!t?.length || !f?.length) return "—";
  const x = invert ? median(f) / median(t) : median(t) / median(f);
  return `${x.toFixed(2)}×`;
}

/**
 * The results as a Markdown table: medians over the rounds with the range in brackets, and Trellis'
 * cost relative to the floor and to LangGraph (time ratios: >1 means Trellis is slower).
 */
export function serverTable(result: ServerBenchResult): string {
  const t = result.servers.trellis;
  const f = result.servers.floor;
  const l = result.servers.langgraph;
  type Row = { name: string; pick: (r: ServerResult) => number[]; digits: number; perSecond: boolean };
  const rows: Row[] = [
    { name: "(i) hitl p50, ms", pick: (r) => r.p50Ms, digits: 1, perSecond: false },
    { name: "(i) hitl p99, ms", pick: (r) => r.p99Ms, digits: 1, perSecond: false },
    ...IN_FLIGHT.map((n) => ({
      name: `(ii) runs/s, ${n} in flight`,
      pick: (r: ServerResult) => r.runsPerSecond[n] ?? [],
      digits: 0,
      perSecond: true,
    })),
    {
      name: `(iii) events/s to ${SUBSCRIBERS} subscribers`,
      pick: (r) => r.eventsPerSecond,
      digits: 0,
      perSecond: true,
    },
  ];
  const lines = [
    "| scenario | Trellis | floor | LangGraph dev server | Trellis cost / floor | Trellis cost / LangGraph |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const { name, pick, digits, perSecond } of rows) {
    const tv = t && pick(t);
    const fv = f && pick(f);
    const lv = l && pick(l);
    lines.push(
      `| ${name} | ${cell(tv, digits)} | ${cell(fv, digits)} | ${cell(lv, digits)} | ${ratio(tv, fv, perSecond)} | ${ratio(tv, lv, perSecond)} |`,
    );
  }
  const rssCell = (r: ServerResult | undefined) => {
    const first = r?.rss[0];
    const last = r?.rss.at(-1);
    if (!first || !last) return "—";
    const growth = last.runs > first.runs ? (last.bytes - first.bytes) / 1024 / (last.runs - first.runs) : 0;
    return `${(first.bytes / 2 ** 20).toFixed(0)} → ${(last.bytes / 2 ** 20).toFixed(0)} MiB (${growth.toFixed(1)} KiB/run over ${last.runs - first.runs} runs)`;
  };
  lines.push(`| (iv) server RSS, after round 1 → last | ${rssCell(t)} | ${rssCell(f)} | ${rssCell(l)} | | |`);
  return lines.join("\n");
}

/** The goals of issue 25 item 4: ≤ 3× the floor's cost in (i) p50 and in (ii) at each level. */
export function serverGoals(result: ServerBenchResult): Array<{ goal: string; value: number; met: boolean }> {
  const t = result.servers.trellis;
  const f = result.servers.floor;
  if (!t || !f) return [];
  const goals = [{ goal: "(i) hitl p50 ≤ 3× floor", value: median(t.p50Ms) / median(f.p50Ms) }];
  for (const n of IN_FLIGHT) {
    goals.push({
      goal: `(ii) runs/s at ${n} in flight ≥ floor / 3`,
      value: median(f.runsPerSecond[n] ?? []) / median(t.runsPerSecond[n] ?? []),
    });
  }
  return goals.map((g) => ({ ...g, met: g.value <= 3 }));
}
