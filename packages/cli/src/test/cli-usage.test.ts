import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeProject, REPO_DIR, runCli, type TestProject } from "./cli-harness.js";

let project: TestProject;
beforeEach(() => {
  project = makeProject();
  const config = JSON.parse(readFileSync(project.config, "utf8")) as Record<string, Record<string, unknown>>;
  config.graphs = {
    ...config.graphs,
    usage: { module: join(REPO_DIR, "packages/cli/src/test/fixture-usage.ts"), graph: "usageGraph" },
  };
  config.prices = { m1: { input: 2, output: 8 } };
  writeFileSync(project.config, JSON.stringify(config));
});
afterEach(() => project.remove());

describe("trellis run: the tokens the session's model calls used", () => {
  it("ends with the tokens and the cost of every run of the session (one before the pause, one after)", async () => {
    const r = await runCli(project, ["run", "usage", "--thread", "t-usage", "--input", "{}"], '"yes"\n');
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    // 3500 in at $2/M + 550 out at $8/M = 0.007 + 0.0044
    expect(lines.at(-1)).toBe("  Tokens: 4,050 (3,500 in · 550 out) in 2 model calls · ≈ $0.0114");
  });

  it("puts the usage in --json's done event", async () => {
    const r = await runCli(project, ["run", "usage", "--thread", "t-json", "--input", "{}", "--json"], '"yes"\n');
    const done = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { event: string; usage?: unknown })
      .find((e) => e.event === "done");
    expect(done?.usage).toEqual({
      inputTokens: 3_500,
      outputTokens: 550,
      totalTokens: 4_050,
      calls: 2,
      costUsd: 0.0114,
    });
  });

  it("prints no tokens line for a graph that called no model", async () => {
    const r = await runCli(project, ["run", "bp-flow", "--thread", "t-none", "--input", "{}"], "\n\n\n");
    expect(r.stdout).not.toContain("Tokens:");
  });
});
