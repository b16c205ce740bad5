import type { RankMetric } from "../companies/company-graph.js";

/** A comparison of a figure with a number: "P/E below 4", "ROE of at least 15%". */
export interface FigureCondition {
  metric: RankMetric;
  op: "lt" | "lte" | "gt" | "gte";
  /** In the metric's unit: millions of the currency for money, % for ratios, times for P/E. */
  value: number;
}

/** The words of each figure, longest first. */
const METRIC_WORDS: readonly { metric: RankMetric; words: string }[] = [
  { metric: "pe_ratio", words: "p\\/?e(?:\\s+ratio)?|price.to.earnings(?:\\s+ratio)?" },
  { metric: "roe", words: "roe|return on equity" },
  { metric: "dividend_yield", words: "dividend yield|dividend|yield" },
  { metric: "market_cap", words: "market cap(?:itali[sz]ation)?|market value|valuation" },
  { metric: "net_profit", words: "net profit|profits?|net income|earnings" },
  { metric: "revenue", words: "revenue|sales|turnover" },
  { metric: "total_assets", words: "total assets|assets" },
];
const OPS: readonly { op: FigureCondition["op"]; words: string }[] = [
  { op: "lte", words: "at most|no more than|not more than|<=|≤|or less" },
  { op: "gte", words: "at least|no less than|not less than|>=|≥|or more" },
  { op: "lt", words: "below|under|less than|lower than|smaller than|beneath|<" },
  { op: "gt", words: "above|over|more than|greater than|higher than|bigger than|exceeding|exceeds|>" },
];
const NUMBER =
  "(?:lkr|rs\\.?|\\$)?\\s*(\\d[\\d,]*(?:\\.\\d+)?)\\s*(%|percent|x|times|bn|billion|b|mn|million|m|k|thousand)?";

/**
 * The figure conditions a question states ("P/E below 4", "ROE above 15%", "market cap over LKR 100
 * bn"), with money turned into millions. Empty when it states none.
 *
 * @example
 * figureConditions("companies with a p/e below 4 and roe above 15%");
 * // [{ metric: "pe_ratio", op: "lt", value: 4 }, { metric: "roe", op: "gt", value: 15 }]
 */
export function figureConditions(question: string): FigureCondition[] {
  const text = question.toLowerCase();
  const out: FigureCondition[] = [];
  for (const { metric, words } of METRIC_WORDS) {
    for (const { op, words: opWords } of OPS) {
      const re = new RegExp(
        `\\b(?:${words})\\b(?:\\s+(?:ratio|is|are|of|was|stands at|that is|which is))*\\s*(?:${opWords})\\s*${NUMBER}`,
        "g",
      );
      for (const m of text.matchAll(re)) {
        const value = scaled(metric, m[1] ?? "", m[2]);
        if (value !== undefined && !out.some((c) => c.metric === metric && c.op === op))
          out.push({ metric, op, value });
      }
    }
  }
  return out;
}

/**
 * The smallest stake a question asks about ("more than 50 %", "majority-owned"), or undefined.
 *
 * @example
 * stakeThreshold("market cap of companies JKH owns more than 50% of"); // { op: "gt", value: 50 }
 */
export function stakeThreshold(question: string): { op: "gt" | "gte"; value: number } | undefined {
  const text = question.toLowerCase();
  if (/\bmajority[- ](?:owned|stakes?|holdings?|control(?:led)?)\b|\bcontrolling stakes?\b/.test(text)) {
    return { op: "gt", value: 50 };
  }
  const m =
    /\b(?:own(?:s|ed)?|holds?|held|stakes?|holdings?|share|interest)\b[^%]{0,40}?\b(more than|over|above|greater than|exceeding|at least|>=|>)\s*(\d+(?:\.\d+)?)\s*(?:%|percent)/.exec(
      text,
    ) ??
    /\b(more than|over|above|greater than|exceeding|at least|>=|>)\s*(\d+(?:\.\d+)?)\s*(?:%|percent)\s*(?:of|stakes?|owned|holdings?)/.exec(
      text,
    );
  if (!m) return undefined;
  const op = /at least|>=/.test(m[1] ?? "") ? "gte" : "gt";
  return { op, value: Number(m[2]) };
}

/** Whether a question asks for a count ("how many", "number of"). */
export function asksCount(question: string): boolean {
  return /\bhow many\b|\bnumber of (?:companies|firms|stocks|banks|listed)\b|\bcount\b/.test(question.toLowerCase());
}

/** Whether a question asks for a sum or an average over several companies ("combined", "total"). */
export function asksAggregate(question: string): "sum" | "avg" | undefined {
  const text = question.toLowerCase();
  if (/\b(average|mean|avg)\b/.test(text)) return "avg";
  if (/\b(combined|total|sum|together|altogether|in total|aggregate|add(?:ed)? up)\b/.test(text)) return "sum";
  return undefined;
}

/**
 * Whether a question ranks sectors rather than companies ("Which sector has the highest total
 * revenue?", "rank the sectors by market cap").
 *
 * @example
 * asksSectorRanking("Which sector has the highest total revenue?"); // true
 */
export function asksSectorRanking(question: string): boolean {
  return /\b(which|what)\s+(?:\w+\s+)?sectors?\b|\bsectors?\s+(?:by|with|ranked|has|have|had|is|are)\b|\brank(?:ing)?\s+(?:of\s+)?(?:the\s+)?sectors\b|\b(?:top|largest|biggest|smallest)\s+(?:\d+\s+)?sectors\b/.test(
    question.toLowerCase(),
  );
}

/**
 * Whether `value` meets a condition.
 *
 * @example
 * meets(3.4, { metric: "pe_ratio", op: "lt", value: 4 }); // true
 */
export function meets(value: number | null, condition: Pick<FigureCondition, "op" | "value">): boolean {
  if (value === null) return false;
  switch (condition.op) {
    case "lt":
      return value < condition.value;
    case "lte":
      return value <= condition.value;
    case "gt":
      return value > condition.value;
    case "gte":
      return value >= condition.value;
  }
}

const MONEY: ReadonlySet<RankMetric> = new Set(["market_cap", "revenue", "net_profit", "total_assets"]);

function scaled(metric: RankMetric, digits: string, unit: string | undefined): number | undefined {
  const n = Number(digits.replace(/,/g, ""));
  if (!Number.isFinite(n)) return undefined;
  if (!MONEY.has(metric)) return n;
  switch (unit) {
    case "bn":
    case "billion":
    case "b":
      return n * 1000;
    case "k":
    case "thousand":
      return n / 1000;
    default:
      return n;
  }
}
