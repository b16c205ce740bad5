import { describe, expect, it } from "vitest";
import { edgePath, layoutGraph } from "./graph-layout.js";

describe("layoutGraph", () => {
  it("places every node top to bottom and routes every edge, loops included", () => {
    const drawing = layoutGraph({
      nodes: [
        { id: "__start__", type: "schema", data: "__start__" },
        { id: "generate", type: "runnable", data: {} },
        { id: "review", type: "runnable", data: {} },
        { id: "__end__", type: "schema", data: "__end__" },
      ],
      edges: [
        { source: "__start__", target: "generate", conditional: false },
        { source: "generate", target: "review", conditional: false },
        { source: "review", target: "generate", conditional: true, data: "revise" },
        { source: "review", target: "__end__", conditional: true, data: "approved" },
      ],
    });
    const y = Object.fromEntries(drawing.nodes.map((n) => [n.id, n.y]));
    expect(y.__start__).toBeLessThan(y.generate as number);
    expect(y.generate).toBeLessThan(y.review as number);
    expect(y.review).toBeLessThan(y.__end__ as number);
    expect(drawing.nodes.find((n) => n.id === "__start__")).toMatchObject({ label: "START", terminal: true });
    expect(drawing.edges.every((e) => e.points.length >= 2)).toBe(true);
    expect(drawing.width).toBeGreaterThan(0);
  });

  it("edgePath draws straight lines and curves", () => {
    expect(edgePath([])).toBe("");
    expect(
      edgePath([
        { x: 0, y: 0 },
        { x: 0, y: 10 },
      ]),
    ).toBe("M0,0 L0,10");
    expect(
      edgePath([
        { x: 0, y: 0 },
        { x: 5, y: 5 },
        { x: 10, y: 0 },
      ]),
    ).toBe("M0,0 Q5,5 10,0");
  });
});
