import { describe, expect, it } from "vitest";
import type { Run } from "./api-types.js";
import { threadUsage, usageText } from "./run-usage.js";

const run = (usage: unknown): Run =>
  ({ run_id: "r", thread_id: "t", metadata: usage === undefined ? {} : { usage } }) as unknown as Run;

describe("a thread's model usage in the studio", () => {
  it("adds up the usage of the thread's runs, per node, and keeps a cost only when every run had one", () => {
    const u = threadUsage([
      run({
        input_tokens: 1000,
        output_tokens: 100,
        total_tokens: 1100,
        calls: 1,
        cost_usd: 0.003,
        by_node: { plan: { total_tokens: 1100, calls: 1 } },
      }),
      run(undefined),
      run({
        input_tokens: 2500,
        output_tokens: 450,
        total_tokens: 2950,
        calls: 2,
        cost_usd: 0.0077,
        by_node: { write: { total_tokens: 2950, calls: 2 } },
      }),
    ]);
    expect(u).toMatchObject({ inputTokens: 3500, outputTokens: 550, totalTokens: 4050, calls: 3, runs: 2 });
    expect(u?.byNode).toEqual([
      { node: "write", totalTokens: 2950, calls: 2 },
      { node: "plan", totalTokens: 1100, calls: 1 },
    ]);
    expect(usageText(u as NonNullable<typeof u>)).toBe(
      "4,050 tokens (3,500 in · 550 out) in 3 model calls over 2 runs · ≈ $0.0107",
    );
    const unpriced = threadUsage([run({ input_tokens: 1, output_tokens: 1, total_tokens: 2, calls: 1 })]);
    expect(usageText(unpriced as NonNullable<typeof unpriced>)).toBe(
      "2 tokens (1 in · 1 out) in 1 model call over 1 run",
    );
    expect(threadUsage([run(undefined)])).toBeUndefined();
  });
});
