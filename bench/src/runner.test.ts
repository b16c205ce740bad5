import { describe, expect, it } from "vitest";
import { batchSize } from "./runner.js";

describe("batchSize", () => {
  it("times a run of 20 ms or more alone, and shorter runs in batches of about 20 ms, at most 50", () => {
    expect(batchSize(250)).toBe(1);
    expect(batchSize(20)).toBe(1);
    expect(batchSize(5)).toBe(4);
    expect(batchSize(0.5)).toBe(40);
    expect(batchSize(0.01)).toBe(50);
  });

  it("falls back to one trial per sample when the warm-up measured nothing usable", () => {
    expect(batchSize(Number.NaN)).toBe(1);
    expect(batchSize(0)).toBe(1);
  });
});
