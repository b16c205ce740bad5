import { describe, expect, it } from "vitest";
import { compatRows, compatTable } from "./compat-report.js";
import type { RuntimeResult, WorkloadResult } from "./runner.js";
import { allWorkloads } from "./workloads/index.js";

function medians(ms: number): RuntimeResult {
  return {
    samples: [ms],
    medianMs: ms,
    minMs: ms,
    storedBytes: undefined,
    stateBytes: undefined,
    batch: 1,
    peakRssBytes: 0,
    baseRssBytes: 0,
  };
}

function result(
  id: string,
  trellis: number,
  compat: number,
  langgraph: number,
  sameProgramAs?: string,
): WorkloadResult {
  return {
    id,
    title: id,
    group: "c",
    ...(sameProgramAs ? { sameProgramAs } : {}),
    saver: "none",
    units: undefined,
    runs: 1,
    warmup: 0,
    results: { trellis: medians(trellis), compat: medians(compat), langgraph: medians(langgraph), floor: medians(1) },
  };
}

describe("the compat table", () => {
  it("judges the layer's cost only where native Trellis runs the LangGraph.js program, and says which row does", () => {
    const table = compatTable(
      compatRows([
        result("c-fanout/3000", 10, 20, 5000, "c-fanout-fold/3000"),
        result("c-fanout-fold/3000", 14, 20, 5000),
        result("e-resume/sqlite", 100, 180, 700),
      ]),
    );
    const [, , plain, fold, resume] = table.split("\n");
    expect(plain).toContain("2.00× n/a, other program (see c-fanout-fold/3000)");
    expect(fold).toContain("1.43× met");
    expect(resume).toContain("1.80× MISS");
    expect(resume).toContain("0.257× MISS");
  });

  it("every fan-out row whose native program appends names a fold row that exists and runs the same program", () => {
    const workloads = allWorkloads();
    const plain = workloads.filter((w) => w.sameProgramAs);
    expect(plain.map((w) => w.id)).toEqual(["c-fanout/100", "c-fanout/1000", "c-fanout/3000"]);
    for (const w of plain) {
      const same = workloads.find((x) => x.id === w.sameProgramAs);
      expect(same?.compat).toBe(true);
      expect(same?.sameProgramAs).toBeUndefined();
      expect(same?.units).toEqual(w.units);
    }
  });
});
