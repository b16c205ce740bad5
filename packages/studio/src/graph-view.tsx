import { useMemo } from "preact/hooks";
import type { GraphJson } from "./api-types.js";
import { edgePath, layoutGraph } from "./graph-layout.js";

/** Props of {@link GraphView}. */
export interface GraphViewProps {
  graph: GraphJson;
  /** Nodes running now (highlighted). */
  active?: readonly string[];
  /** Nodes the thread is paused at: inside them (an interrupt) or before them (a breakpoint). */
  paused?: readonly string[];
  /** Nodes that ran in the watched run (tinted). */
  visited?: readonly string[];
}

/**
 * The graph drawn as SVG: nodes, plain edges solid, conditional edges dashed with their labels; the
 * running node is highlighted, the node a pause waits at is marked.
 *
 * @example
 * <GraphView graph={graph} active={["write"]} paused={[]} />
 */
export function GraphView({ graph, active = [], paused = [], visited = [] }: GraphViewProps) {
  const drawing = useMemo(() => layoutGraph(graph), [graph]);
  return (
    <svg
      class="graph"
      viewBox={`0 0 ${drawing.width} ${drawing.height}`}
      width={drawing.width}
      height={drawing.height}
      role="img"
      aria-label="graph drawing"
    >
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" class="arrow" />
        </marker>
      </defs>
      {drawing.edges.map((e) => {
        const at = e.labelAt ?? e.points[Math.floor(e.points.length / 2)];
        return (
          <g
            key={`${e.source}-${e.target}-${e.label ?? ""}`}
            class={e.conditional ? "edge conditional" : "edge"}
            data-edge={`${e.source}->${e.target}`}
          >
            <path d={edgePath(e.points)} marker-end="url(#arrow)" />
            {e.label && at ? (
              <text x={at.x} y={at.y} class="edge-label" text-anchor="middle" dominant-baseline="middle">
                {e.label}
              </text>
            ) : null}
          </g>
        );
      })}
      {drawing.nodes.map((n) => {
        const cls = [
          "node",
          n.terminal ? "terminal" : "",
          active.includes(n.id) ? "active" : "",
          paused.includes(n.id) ? "paused" : "",
          visited.includes(n.id) ? "visited" : "",
        ]
          .filter(Boolean)
          .join(" ");
        return (
          <g
            key={n.id}
            class={cls}
            data-node={n.id}
            transform={`translate(${n.x - n.width / 2},${n.y - n.height / 2})`}
          >
            <rect width={n.width} height={n.height} rx={n.terminal ? n.height / 2 : 6} />
            <text x={n.width / 2} y={n.height / 2} text-anchor="middle" dominant-baseline="central">
              {n.label}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
