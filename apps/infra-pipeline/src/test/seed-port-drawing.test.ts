/**
 * The seed's ported pipeline (`seed-port-pipeline.ts`) drawn with `drawMermaid()`, against the seed's
 * "Visualization" section (moved here from the core's drawing tests).
 */
import { MemorySaver } from "@trellis/core";
import { describe, expect, it } from "vitest";
import { EDGES_BEYOND_SEED_DRAWING, SEED_DRAWING } from "../test-support/seed-drawing.js";
import { buildPipeline } from "./seed-port-pipeline.js";

describe("the ported seed 001 pipeline, drawn", () => {
  it("labels its conditional edges with its own path-map keys; every other line is the seed's", () => {
    const lines = buildPipeline(new MemorySaver()).graph.drawMermaid().split("\n");
    const seedLines = SEED_DRAWING.trimEnd().split("\n").slice(1);
    // The seed's code maps "planning" (its drawing shows the intent, "change"): every other line matches.
    for (const line of seedLines.slice(1)) expect(lines).toContain(line);
    expect(lines).toContain("    orchestrator --> |planning| planning");
  });

  it("has the seed's 16 edges plus the entry point and the three edges to END", () => {
    const lines = buildPipeline(new MemorySaver()).graph.drawMermaid().split("\n");
    const edges = lines.filter((l) => l.includes("-->") || l.includes("-.->"));
    expect(edges).toHaveLength(20);
    for (const edge of EDGES_BEYOND_SEED_DRAWING) expect(edges.join("\n")).toContain(edge.trim());
  });
});
