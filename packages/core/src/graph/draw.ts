import { END, START } from "../constants.js";
import type { GraphSpec } from "./spec.js";

/** A graph's structure as data, for drawings and UIs. */
export interface GraphDrawing {
  nodes: Array<{ id: string; kind: "start" | "end" | "node" | "subgraph"; metadata?: Record<string, unknown> }>;
  edges: Array<{ source: string; target: string; conditional: boolean; label?: string }>;
}

/** @internal */
export function drawingOf(spec: GraphSpec): GraphDrawing {
  const nodes: GraphDrawing["nodes"] = [{ id: START, kind: "start" }];
  for (const node of spec.nodes.values()) {
    const entry: GraphDrawing["nodes"][number] = { id: node.name, kind: node.subgraph ? "subgraph" : "node" };
    if (node.options.metadata) entry.metadata = node.options.metadata;
    nodes.push(entry);
  }
  nodes.push({ id: END, kind: "end" });
  const edges: GraphDrawing["edges"] = [];
  const seen = new Set<string>();
  const add = (source: string, target: string, conditional: boolean, label?: string) => {
    const key = `${source}\u0000${target}\u0000${label ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    edges.push(label === undefined ? { source, target, conditional } : { source, target, conditional, label });
  };
  const order = [START, ...spec.nodes.keys()];
  for (const source of order) {
    for (const target of spec.edges.get(source) ?? []) add(source, target, false);
    for (const branch of spec.branches.get(source) ?? []) {
      if (branch.pathMap) {
        for (const [key, target] of Object.entries(branch.pathMap))
          add(source, target, true, key === target && branch.listed ? undefined : key);
      } else {
        for (const target of [...spec.nodes.keys(), END]) add(source, target, true);
      }
    }
    for (const end of spec.nodes.get(source)?.options.ends ?? []) add(source, end, true);
  }
  for (const joins of spec.joins.values()) {
    for (const join of joins) for (const s of join.sources) add(s, join.target, false);
  }
  return { nodes, edges };
}

/**
 * Mermaid flowchart text: plain edges as `a --> b`, conditional edges labelled with their path-map key
 * as `a --> |key| b`, and dotted when unlabelled.
 * @internal
 */
export function mermaidOf(drawing: GraphDrawing): string {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  const idOf = (name: string) => {
    let id = ids.get(name);
    if (id) return id;
    let base = name === START ? "START" : name === END ? "END" : name.replace(/[^A-Za-z0-9_]/g, "_");
    // Mermaid keywords cannot be node ids ("end" closes a subgraph); such nodes get an id and a label.
    if (MERMAID_KEYWORDS.has(base)) base = `${base}_`;
    id = base;
    for (let i = 2; taken.has(id); i++) id = `${base}_${i}`;
    taken.add(id);
    ids.set(name, id);
    return id;
  };
  const lines = ["graph TD"];
  for (const node of drawing.nodes) {
    const id = idOf(node.id);
    if (node.kind === "start" || node.kind === "end") lines.push(`    ${id}([${id}])`);
    else if (id !== node.id) lines.push(`    ${id}["${node.id.replace(/"/g, "#quot;")}"]`);
    else if (node.kind === "subgraph") lines.push(`    ${id}[[${id}]]`);
  }
  for (const edge of drawing.edges) {
    const from = idOf(edge.source);
    const to = idOf(edge.target);
    if (edge.label !== undefined) lines.push(`    ${from} --> |${mermaidLabel(edge.label)}| ${to}`);
    else lines.push(`    ${from} ${edge.conditional ? "-.->" : "-->"} ${to}`);
  }
  return `${lines.join("\n")}\n`;
}

const MERMAID_KEYWORDS = new Set([
  "end",
  "graph",
  "flowchart",
  "subgraph",
  "style",
  "class",
  "classDef",
  "click",
  "linkStyle",
  "direction",
  "call",
  "href",
]);

/** A path-map key as an edge label: bare when it is simple, else quoted with Mermaid's entity escapes. */
function mermaidLabel(label: string): string {
  if (/^[\w .-]*$/.test(label)) return label;
  return `"${label.replace(/"/g, "#quot;").replace(/\|/g, "#124;")}"`;
}
