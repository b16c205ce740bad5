/**
 * getGraph() and drawMermaid(), checked against seed 001's "Visualization" section.
 */
import { describe, expect, it } from "vitest";
import { Command, channel, END, START, StateGraph } from "../index.js";

/** The seed's expected output, verbatim. */
const SEED_VISUALIZATION = `graph TD
    orchestrator --> |change| planning
    orchestrator --> |query| END
    orchestrator --> |conversation| END
    planning --> plan_approval
    plan_approval --> |approved| iac
    plan_approval --> |rejected| rejected
    plan_approval --> |pending| END
    iac --> review
    review --> |passed| deploy_approval
    review --> |needs_revision| iac
    review --> |failed| end_failure
    deploy_approval --> |approved| deploy_validate
    deploy_approval --> |rejected| rejected
    deploy_approval --> |dry_run| end_success
    deploy_approval --> |pending| END
    deploy_validate --> end_success`;

const seedLines = SEED_VISUALIZATION.split("\n").slice(1);

/** Seed 001's topology with the orchestrator's path map keyed by intent, as its drawing shows it. */
function drawnPipeline() {
  const stub = () => ({});
  const route = () => "";
  return new StateGraph({ x: channel.value(0) })
    .addNode("orchestrator", stub)
    .addNode("planning", stub)
    .addNode("plan_approval", stub)
    .addNode("iac", stub)
    .addNode("review", stub)
    .addNode("deploy_approval", stub)
    .addNode("deploy_validate", stub)
    .addNode("rejected", stub)
    .addNode("end_success", stub)
    .addNode("end_failure", stub)
    .setEntryPoint("orchestrator")
    .addConditionalEdges("orchestrator", route, { change: "planning", query: END, conversation: END })
    .addEdge("planning", "plan_approval")
    .addConditionalEdges("plan_approval", route, { approved: "iac", rejected: "rejected", pending: END })
    .addEdge("iac", "review")
    .addConditionalEdges("review", route, { passed: "deploy_approval", needs_revision: "iac", failed: "end_failure" })
    .addConditionalEdges("deploy_approval", route, {
      approved: "deploy_validate",
      rejected: "rejected",
      dry_run: "end_success",
      pending: END,
    })
    .addEdge("deploy_validate", "end_success")
    .addEdge("rejected", END)
    .addEdge("end_success", END)
    .addEdge("end_failure", END)
    .compile({ name: "infra_pipeline" });
}

describe("drawMermaid against seed 001's Visualization", () => {
  it("draws every edge of the seed, in order, plus START and the edges to END it leaves out", () => {
    const text = drawnPipeline().drawMermaid();
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("graph TD");
    const edgeLines = lines.filter((l) => l.includes("-->") || l.includes("-.->"));
    expect(edgeLines).toEqual([
      "    START --> orchestrator",
      ...seedLines,
      "    rejected --> END",
      "    end_success --> END",
      "    end_failure --> END",
    ]);
    expect(lines).toContain("    START([START])");
    expect(lines).toContain("    END([END])");
  });

  it("getGraph() lists nodes and edges as data, conditional edges with their key", () => {
    const drawing = drawnPipeline().getGraph();
    expect(drawing.nodes.map((n) => [n.id, n.kind])).toEqual([
      [START, "start"],
      ["orchestrator", "node"],
      ["planning", "node"],
      ["plan_approval", "node"],
      ["iac", "node"],
      ["review", "node"],
      ["deploy_approval", "node"],
      ["deploy_validate", "node"],
      ["rejected", "node"],
      ["end_success", "node"],
      ["end_failure", "node"],
      [END, "end"],
    ]);
    expect(drawing.edges).toHaveLength(20);
    expect(drawing.edges).toContainEqual({ source: START, target: "orchestrator", conditional: false });
    expect(drawing.edges).toContainEqual({
      source: "review",
      target: "iac",
      conditional: true,
      label: "needs_revision",
    });
    expect(drawing.edges).toContainEqual({
      source: "plan_approval",
      target: "rejected",
      conditional: true,
      label: "rejected",
    });
    expect(drawing.edges).toContainEqual({ source: "orchestrator", target: END, conditional: true, label: "query" });
    expect(drawing.edges).toContainEqual({
      source: "orchestrator",
      target: END,
      conditional: true,
      label: "conversation",
    });
    expect(drawing.edges).toContainEqual({ source: "deploy_validate", target: "end_success", conditional: false });
    expect(JSON.parse(JSON.stringify(drawing))).toEqual(drawing);
  });
});

describe("drawMermaid output is valid Mermaid", () => {
  const ID = /^[A-Za-z_][A-Za-z0-9_]*$/;
  const KEYWORDS = new Set([
    "end",
    "graph",
    "subgraph",
    "flowchart",
    "style",
    "class",
    "classDef",
    "click",
    "linkStyle",
  ]);

  /** Parses the flowchart this module emits; fails on anything Mermaid would misread. */
  function parse(text: string) {
    const [header, ...body] = text.trimEnd().split("\n");
    expect(header).toBe("graph TD");
    const labels = new Map<string, string>();
    const edges: Array<{ from: string; to: string; arrow: string; label?: string }> = [];
    for (const line of body) {
      const edge = /^ {4}(\S+) (-->|-\.->)(?: \|([^|]*)\|)? (\S+)$/.exec(line);
      const node = /^ {4}(\S+?)(\(\[.*\]\)|\["(.*)"\]|\[\[.*\]\])$/.exec(line);
      if (edge) {
        const [, from, arrow, label, to] = edge as unknown as [string, string, string, string | undefined, string];
        for (const id of [from, to]) {
          expect(id).toMatch(ID);
          expect(KEYWORDS.has(id)).toBe(false);
        }
        edges.push(label === undefined ? { from, to, arrow } : { from, to, arrow, label });
      } else if (node) {
        expect(node[1]).toMatch(ID);
        expect(KEYWORDS.has(node[1] as string)).toBe(false);
        if (node[3] !== undefined) labels.set(node[1] as string, node[3]);
      } else {
        throw new Error(`not a Mermaid statement this module should emit: ${JSON.stringify(line)}`);
      }
    }
    return { labels, edges };
  }

  it("gives nodes with awkward names safe ids and shows their names as labels", () => {
    const stub = () => ({});
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("general-agent", stub)
      .addNode("general_agent", stub)
      .addNode("end", stub)
      .addNode("class", stub)
      .addNode("START", stub)
      .addNode('say "hi"', stub)
      .addEdge(START, "general-agent")
      .addEdge("general-agent", "general_agent")
      .addEdge("general_agent", "end")
      .addEdge("end", "class")
      .addEdge("class", "START")
      .addEdge("START", 'say "hi"')
      .addEdge('say "hi"', END)
      .compile();
    const { labels, edges } = parse(graph.drawMermaid());
    const ids = edges.flatMap((e) => [e.from, e.to]);
    // Every node keeps a distinct id, and the ones that had to change show their real name.
    const nodeIds = new Set(ids);
    expect(nodeIds.size).toBe(8); // six nodes, START and END
    const named = new Map([...labels].map(([id, label]) => [label, id]));
    expect(named.get("general-agent")).toBeDefined();
    expect(named.get("end")).toBeDefined();
    expect(named.get("class")).toBeDefined();
    expect(named.get("START")).not.toBe("START");
    expect(named.get("say #quot;hi#quot;")).toBeDefined();
  });

  it("quotes path-map keys that would break an edge label", () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", () => ({}))
      .addNode("b", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "", { "yes|no": "b", 'say "ok"': END, "needs review": "b" })
      .compile();
    const { edges } = parse(graph.drawMermaid());
    expect(edges.map((e) => e.label).filter(Boolean)).toEqual(['"yes#124;no"', '"say #quot;ok#quot;"', "needs review"]);
  });

  it("list path maps and routers without a map draw unlabelled dotted edges; Command ends too", () => {
    const graph = new StateGraph({ x: channel.value(0) })
      .addNode("a", () => new Command({ goto: "c" }), { ends: ["c"] })
      .addNode("b", () => ({}))
      .addNode("c", () => ({}))
      .addConditionalEdges(START, () => "a", ["a", "b"])
      .addConditionalEdges("b", () => END)
      .compile();
    const { edges } = parse(graph.drawMermaid());
    expect(edges).toContainEqual({ from: "START", to: "a", arrow: "-.->" });
    expect(edges).toContainEqual({ from: "START", to: "b", arrow: "-.->" });
    expect(edges).toContainEqual({ from: "a", to: "c", arrow: "-.->" });
    expect(edges.filter((e) => e.from === "b").map((e) => e.to)).toEqual(["a", "b", "c", "END"]);
  });

  it("seed 001's topology parses back to its 20 edges", () => {
    const { edges } = parse(drawnPipeline().drawMermaid());
    expect(edges).toHaveLength(20);
  });
});

describe("getGraph({ xray }) and drawMermaid({ xray })", () => {
  const pass = () => ({});
  /** A subgraph with two first nodes and two last ones: its START and END cannot be dropped. */
  function forkedSub() {
    const sub = new StateGraph({ n: channel.value(0) })
      .addNode("a", pass)
      .addNode("b", pass)
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge("a", END)
      .addEdge("b", END)
      .compile({ name: "forked" });
    return new StateGraph({ n: channel.value(0) })
      .addNode("prep", pass)
      .addNode("fan", sub)
      .addEdge(START, "prep")
      .addEdge("prep", "fan")
      .addEdge("fan", END)
      .compile();
  }

  it("keeps a subgraph's START and END as parent:__start__ / parent:__end__ when it has several first or last nodes", () => {
    const g = forkedSub().getGraph({ xray: true });
    expect(g.nodes.map((n) => n.id)).toEqual([START, "prep", `fan:${START}`, "fan:a", "fan:b", `fan:${END}`, END]);
    expect(g.edges.map((e) => `${e.source}->${e.target}`).sort()).toEqual(
      [
        `fan:${START}->fan:a`,
        `fan:${START}->fan:b`,
        `fan:a->fan:${END}`,
        `fan:b->fan:${END}`,
        `${START}->prep`,
        `prep->fan:${START}`,
        `fan:${END}->${END}`,
      ].sort(),
    );
  });

  it("draws the expanded graph in Mermaid with readable ids and the parent:child names as labels", () => {
    const text = forkedSub().drawMermaid({ xray: true });
    expect(text).toContain('fan_a["fan:a"]');
    expect(text).toContain("prep --> fan___start__");
    expect(forkedSub().drawMermaid()).toContain("fan[[fan]]");
  });
});
