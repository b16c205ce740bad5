import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const s = sdkServer({
  graphs: { ...TEST_GRAPHS, usage: { module: "./src/test/fixture-usage.ts", graph: "usageGraph" } },
  prices: { m1: { input: 2, output: 8 }, "acme:m2": { input: 1, output: 4 } },
});

describe("a run's token usage and cost over the Agent Server API", () => {
  it("GET /threads/{id}/runs/{run_id} shows metadata.usage: totals, per node, per model, with the cost from the prices", async () => {
    const thread = await s.client.threads.create();
    const run = await s.client.runs.create(thread.thread_id, "usage", { input: {}, metadata: { source: "test" } });
    await s.client.runs.join(thread.thread_id, run.run_id);
    const stored = await s.client.runs.get(thread.thread_id, run.run_id);
    expect(stored.status).toBe("success");
    expect(stored.metadata).toMatchObject({ source: "test" });
    // m1: 3000 in, 500 out at $2/$8 per million = 0.006 + 0.004; m2: 500 in, 50 out at $1/$4 = 0.0005 + 0.0002
    expect(stored.metadata?.usage).toEqual({
      input_tokens: 3_500,
      output_tokens: 550,
      total_tokens: 4_050,
      calls: 3,
      cost_usd: 0.0107,
      by_node: {
        plan: { input_tokens: 1_000, output_tokens: 100, total_tokens: 1_100, calls: 1 },
        write: { input_tokens: 2_500, output_tokens: 450, total_tokens: 2_950, calls: 2 },
      },
      by_model: {
        "acme:m1": { input_tokens: 3_000, output_tokens: 500, total_tokens: 3_500, calls: 2, cost_usd: 0.01 },
        "acme:m2": { input_tokens: 500, output_tokens: 50, total_tokens: 550, calls: 1, cost_usd: 0.0007 },
      },
    });
  });

  it("keeps the usage of a run that failed after its model calls", async () => {
    const thread = await s.client.threads.create();
    const run = await s.client.runs.create(thread.thread_id, "usage", { input: { fail: true } });
    await s.client.runs.join(thread.thread_id, run.run_id);
    const stored = await s.client.runs.get(thread.thread_id, run.run_id);
    expect(stored.status).toBe("error");
    expect(stored.metadata?.usage).toMatchObject({ calls: 3, total_tokens: 4_050, cost_usd: 0.0107 });
  });

  it("adds no usage to a run that called no model", async () => {
    const thread = await s.client.threads.create();
    const run = await s.client.runs.create(thread.thread_id, "ask", { input: {} });
    await s.client.runs.join(thread.thread_id, run.run_id);
    expect((await s.client.runs.get(thread.thread_id, run.run_id)).metadata).not.toHaveProperty("usage");
  });
});

describe("prices in the server config", () => {
  it("refuses a price that is not a number of dollars per million tokens, saying how to write one", async () => {
    const { resolveConfig } = await import("../config/config.js");
    expect(() => resolveConfig({ graphs: {}, prices: { m1: { input: "cheap", output: 1 } } } as never, {})).toThrow(
      /prices \["m1"\]\.input must be a number of 0 or more\. Write \{ "gpt-4o-mini"/,
    );
  });
});
