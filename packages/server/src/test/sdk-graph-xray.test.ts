/**
 * `client.assistants.getGraph(id, { xray })` expands subgraph nodes as LangGraph's server does. The
 * expected nodes and edges are what LangGraph.js 1.x's `getGraphAsync({ xray }).toJSON()` gives for the
 * same graph (`fixture-xray.ts`): subgraph nodes named `parent:child`, the subgraph's START and END
 * dropped, edges into it reaching its first node and edges out of it leaving its last one; a one-node
 * subgraph stays one node; a number is a depth.
 */
import { describe, expect, it } from "vitest";
import { sdkServer, TEST_GRAPHS } from "./harness.js";

const server = sdkServer({
  graphs: { ...TEST_GRAPHS, xray: { module: "./src/test/fixture-xray.ts", graph: "xrayGraph" } },
});

type Drawn = {
  nodes: Array<{ id: string | number }>;
  edges: Array<{ source: string; target: string; data?: unknown; conditional?: boolean }>;
};
const ids = (g: Drawn) => g.nodes.map((n) => String(n.id));
const edges = (g: Drawn) =>
  g.edges
    .map((e) => `${e.source}->${e.target}${e.conditional ? "?" : ""}${e.data ? `[${String(e.data)}]` : ""}`)
    .sort();

const TOP = [
  "__start__->plan",
  "plan->review?[go]",
  "plan->ship?[skip]",
  "review->ship",
  "ship->solo",
  "solo->__end__",
];
const ONE_LEVEL = [
  "__start__->plan",
  "plan->review:draft?[go]",
  "plan->ship?[skip]",
  "review:draft->review:check",
  "review:check->review:publish",
  "review:publish->ship",
  "ship->solo",
  "solo->__end__",
];
const ALL_LEVELS = [
  "__start__->plan",
  "plan->review:draft?[go]",
  "plan->ship?[skip]",
  "review:draft->review:check:lint",
  "review:check:lint->review:check:score",
  "review:check:score->review:publish",
  "review:publish->ship",
  "ship->solo",
  "solo->__end__",
];

describe("assistants.getGraph with xray", () => {
  it("without xray (or xray false / 0) draws subgraphs as single nodes", async () => {
    for (const options of [undefined, { xray: false }, { xray: 0 }]) {
      const g = (await server.client.assistants.getGraph("xray", options)) as unknown as Drawn;
      expect(ids(g)).toEqual(["__start__", "plan", "review", "ship", "solo", "__end__"]);
      expect(edges(g)).toEqual([...TOP].sort());
    }
  });

  it("xray 1 expands one level: review's nodes as review:child, its subgraph check still one node", async () => {
    const g = (await server.client.assistants.getGraph("xray", { xray: 1 })) as unknown as Drawn;
    expect(ids(g)).toEqual([
      "__start__",
      "plan",
      "review:draft",
      "review:check",
      "review:publish",
      "ship",
      "solo",
      "__end__",
    ]);
    expect(edges(g)).toEqual([...ONE_LEVEL].sort());
  });

  it("xray true (and a depth of 2 or more) expands every level; a one-node subgraph stays one node", async () => {
    for (const xray of [true, 2, 5]) {
      const g = (await server.client.assistants.getGraph("xray", { xray })) as unknown as Drawn;
      expect(ids(g)).toEqual([
        "__start__",
        "plan",
        "review:draft",
        "review:check:lint",
        "review:check:score",
        "review:publish",
        "ship",
        "solo",
        "__end__",
      ]);
      expect(edges(g)).toEqual([...ALL_LEVELS].sort());
    }
  });

  it("an xray that is neither a boolean nor a depth is a 400 saying what it takes", async () => {
    const res = await fetch(`${server.t.url}/assistants/xray/graph?xray=deep`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/xray must be true, false or a depth/);
  });
});
