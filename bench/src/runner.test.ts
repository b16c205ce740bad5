import { describe, expect, it } from "vitest";
import { batchSize, samplesPerRound } from "./runner.js";

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

describe("samplesPerRound", () => {
  it("gives a short runtime at least 7 samples over the rounds the slowest one allows", () => {
    expect(samplesPerRound(30, 2)).toBe(4);
    expect(samplesPerRound(30, 3)).toBe(3);
    expect(samplesPerRound(30, 7)).toBe(1);
    expect(samplesPerRound(0.5, 1)).toBe(7);
  });

  it("samples a runtime whose samples take 200 ms or more once a round, as before", () => {
    expect(samplesPerRound(200, 2)).toBe(1);
    expect(samplesPerRound(6_000, 2)).toBe(1);
    expect(samplesPerRound(Number.NaN, 2)).toBe(1);
  });
});
