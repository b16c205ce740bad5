import { END, START } from "../constants.js";
import type { GraphSpec } from "./spec.js";

/**
 * A graph's structure as data, for drawings and UIs.
 *
 * @example
 * const drawing: GraphDrawing = graph.getGraph();
 * const branches = drawing.edges.filter((e) => e.conditional).map((e) => `${e.source} -> ${e.target}`);
 */
export interface GraphDrawing {
  nodes: Array<{ id: string; kind: "start" | "end" | "node" | "subgraph"; metadata?: Record<string, unknown> }>;
  edges: Array<{ source: string; target: string; conditional: boolean; label?: string }>;
}

/**
 * How deep {@link drawingOf} expands subgraphs, as LangGraph's `getGraph({ xray })` takes it: `false` or
 * `0` draws a subgraph as one node, `true` expands every level, a number that many levels.
 *
 * @example
 * const depth: Xray = 1; // expand subgraphs one level
 * graph.getGraph({ xray: depth });
 */
export type Xray = boolean | number;

/**
 * The graph's drawing; with `xray`, each subgraph node is replaced by the subgraph's own nodes, named
 * `parent:child` (nested ones `parent:child:grandchild`), the way LangGraph's `getGraph({ xray })` draws
 * them: the subgraph's START and END are dropped when it has a single first and a single last node, edges
 * into the subgraph node go to its first node and edges out of it leave from its last node. A subgraph
 * of one node stays one node.
 * @internal
 */
export function drawingOf(spec: GraphSpec, xray: Xray = false): GraphDrawing {
  const flat = flatDrawingOf(spec);
  if (!xray) return flat;
  const deeper: Xray = typeof xray === "number" ? xray - 1 : xray;
  const nodes: GraphDrawing["nodes"] = [];
  const inner: GraphDrawing["edges"] = [];
  /** For an expanded subgraph node: where edges into it arrive and where edges out of it leave. */
  const ends = new Map<string, { first: string; last: string | undefined }>();
  for (const node of flat.nodes) {
    const sub = node.kind === "subgraph" ? spec.nodes.get(node.id)?.subgraph : undefined;
    const drawn = sub ? trimmed(drawingOf(sub.spec, deeper)) : undefined;
    const first = drawn && firstNode(drawn);
    if (!drawn || drawn.nodes.length <= 1 || first === undefined) {
      nodes.push(node);
      continue;
    }
    const prefixed = (id: string) => `${node.id}:${id}`;
    for (const child of drawn.nodes) nodes.push({ ...child, id: prefixed(child.id) });
    for (const edge of drawn.edges)
      inner.push({ ...edge, source: prefixed(edge.source), target: prefixed(edge.target) });
    const last = lastNode(drawn);
    ends.set(node.id, { first: prefixed(first), last: last === undefined ? undefined : prefixed(last) });
  }
  const edges = [...inner];
  for (const edge of flat.edges) {
    const from = ends.get(edge.source);
    const source = from ? from.last : edge.source;
    // LangGraph draws no edge out of a subgraph that has no single last node
    if (source === undefined) continue;
    edges.push({ ...edge, source, target: ends.get(edge.target)?.first ?? edge.target });
  }
  return { nodes, edges };
}

/** The one node no edge enters (ignoring `exclude` and the edges out of it), if there is exactly one. */
function firstNode(drawing: GraphDrawing, exclude?: string): string | undefined {
  const targets = new Set(drawing.edges.filter((e) => e.source !== exclude).map((e) => e.target));
  const found = drawing.nodes.filter((n) => n.id !== exclude && !targets.has(n.id));
  return found.length === 1 ? found[0]?.id : undefined;
}

/** The one node no edge leaves (ignoring `exclude` and the edges into it), if there is exactly one. */
function lastNode(drawing: GraphDrawing, exclude?: string): string | undefined {
  const sources = new Set(drawing.edges.filter((e) => e.target !== exclude).map((e) => e.source));
  const found = drawing.nodes.filter((n) => n.id !== exclude && !sources.has(n.id));
  return found.length === 1 ? found[0]?.id : undefined;
}

/** Without its first node (START) when another single first node remains, and likewise its last (END). */
function trimmed(drawing: GraphDrawing): GraphDrawing {
  let out = drawing;
  const without = (d: GraphDrawing, id: string): GraphDrawing => ({
    nodes: d.nodes.filter((n) => n.id !== id),
    edges: d.edges.filter((e) => e.source !== id && e.target !== id),
  });
  const first = firstNode(out);
  if (first !== undefined && firstNode(out, first) !== undefined) out = without(out, first);
  const last = lastNode(out);
  if (last !== undefined && lastNode(out, last) !== undefined) out = without(out, last);
  return out;
}

function flatDrawingOf(spec: GraphSpec): GraphDrawing {
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
