import { Graph, layout } from "@dagrejs/dagre";
import type { GraphJson } from "./api-types.js";

/** A node placed on the drawing (centre coordinates). */
export interface PlacedNode {
  id: string;
  label: string;
  terminal: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge as a polyline. */
export interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  label: string | undefined;
  points: Array<{ x: number; y: number }>;
  /** Where the label's centre goes. */
  labelAt: { x: number; y: number } | undefined;
}

/** A laid-out drawing. */
export interface Drawing {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const CHAR = 7.5;
/** How far a self-loop reaches out of its node's right side. */
const LOOP_REACH = 26;
const labelWidth = (label: string) => label.length * 6.5 + 8;

/**
 * Lays a graph out top to bottom (dagre: layered, cycles broken, edges routed around nodes).
 *
 * @example
 * const d = layoutGraph(await api.graph("approval-flow"));
 * d.nodes.find((n) => n.id === "write")?.y;
 */
export function layoutGraph(graph: GraphJson): Drawing {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 30, ranksep: 42, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) {
    const terminal = n.type === "schema";
    const label = terminal ? n.id.replace(/^__|__$/g, "").toUpperCase() : n.id;
    g.setNode(n.id, { label, width: Math.max(70, label.length * CHAR + 28), height: terminal ? 30 : 36 });
  }
  graph.edges.forEach((e, i) => {
    const label = e.data;
    g.setEdge(e.source, e.target, label ? { label, width: labelWidth(label), height: 14, labelpos: "c" } : {}, `e${i}`);
  });
  layout(g);
  const nodes: PlacedNode[] = graph.nodes.map((n) => {
    const p = g.node(n.id) as unknown as { x: number; y: number; width: number; height: number; label: string };
    return {
      id: n.id,
      label: p.label,
      terminal: n.type === "schema",
      x: p.x,
      y: p.y,
      width: p.width,
      height: p.height,
    };
  });
  const size = g.graph() as { width?: number; height?: number };
  let width = size.width ?? 200;
  const edges: PlacedEdge[] = graph.edges.map((e, i) => {
    const placed = { source: e.source, target: e.target, conditional: e.conditional, label: e.data };
    const node = e.source === e.target ? nodes.find((n) => n.id === e.source) : undefined;
    if (node) {
      // dagre routes a self-loop around its label, away from the node: drawn here as a loop on the node
      const loop = selfLoop(node, e.data);
      width = Math.max(width, loop.right + 12);
      return { ...placed, points: loop.points, labelAt: loop.labelAt };
    }
    const p = g.edge({ v: e.source, w: e.target, name: `e${i}` }) as unknown as {
      points?: Array<{ x: number; y: number }>;
      x?: number;
      y?: number;
    };
    const labelAt = e.data && p.x !== undefined && p.y !== undefined ? { x: p.x, y: p.y } : undefined;
    return { ...placed, points: p.points ?? [], labelAt };
  });
  return { width, height: size.height ?? 200, nodes, edges };
}

/**
 * A loop from a node's right side back into it (an edge from the node to itself, like twi-author's
 * `review → review`), with its label beside it.
 *
 * @example
 * selfLoop({ x: 50, y: 100, width: 80, height: 36 }, "ask_again").points[0]; // { x: 90, y: 91 }
 */
export function selfLoop(
  node: { x: number; y: number; width: number; height: number },
  label: string | undefined,
): { points: Array<{ x: number; y: number }>; labelAt: { x: number; y: number } | undefined; right: number } {
  const side = node.x + node.width / 2;
  const out = side + LOOP_REACH;
  const top = node.y - node.height / 4;
  const bottom = node.y + node.height / 4;
  const points = [
    { x: side, y: top },
    { x: out, y: top - 10 },
    { x: out, y: bottom + 10 },
    { x: side, y: bottom },
  ];
  if (!label) return { points, labelAt: undefined, right: out };
  const w = labelWidth(label);
  return { points, labelAt: { x: out + 4 + w / 2, y: node.y }, right: out + 4 + w };
}

/**
 * An SVG path through an edge's points, smoothed with quadratic curves.
 *
 * @example
 * edgePath([{ x: 0, y: 0 }, { x: 0, y: 10 }]); // "M0,0 L0,10"
 */
export function edgePath(points: ReadonlyArray<{ x: number; y: number }>): string {
  if (points.length === 0) return "";
  const [first, ...rest] = points;
  if (!first) return "";
  if (rest.length === 1) return `M${first.x},${first.y} L${rest[0]?.x},${rest[0]?.y}`;
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i] as { x: number; y: number };
    const q = rest[i + 1] as { x: number; y: number };
    const mid = i === rest.length - 2 ? q : { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    d += ` Q${p.x},${p.y} ${mid.x},${mid.y}`;
  }
  return d;
}
