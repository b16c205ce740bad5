/**
 * The pipeline as a Mermaid flowchart in the seed's "Visualization" style: `graph TD`, `a --> b` for
 * edges and `a --> |key| b` for every conditional edge, labelled with its path-map key.
 */
import { END, type GraphDrawing, START } from "@trellis/core";

/**
 * Renders a graph drawing. Core's `drawMermaid()` leaves a conditional edge unlabelled (and dotted)
 * when its path-map key equals the target (`rejected: "rejected"`); the seed labels those too, so this
 * labels every conditional edge — every router of the pipeline has a path map, so an unlabelled one
 * is always keyed by its target's name.
 *
 * @example
 * console.log(renderMermaid(graph.getGraph()));
 * // graph TD
 * //     START --> orchestrator
 * //     orchestrator --> |change| planning
 * //     …
 */
export function renderMermaid(drawing: GraphDrawing): string {
  const id = (name: string) => (name === START ? "START" : name === END ? "END" : name);
  const lines = ["graph TD"];
  for (const edge of drawing.edges) {
    const label = edge.label ?? (edge.conditional ? id(edge.target) : undefined);
    lines.push(`    ${id(edge.source)} --> ${label === undefined ? "" : `|${label}| `}${id(edge.target)}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The edges of a Mermaid flowchart as `source --> |label| target` strings (label omitted when absent),
 * for comparing two drawings whatever their layout.
 *
 * @example
 * mermaidEdges("graph TD\n    a --> |x| b\n"); // ["a --> |x| b"]
 */
export function mermaidEdges(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*([\w-]+)\s*(?:-->|-\.->)\s*(?:\|([^|]*)\|\s*)?([\w-]+)\s*$/.exec(line);
    if (m) out.push(m[2] === undefined ? `${m[1]} --> ${m[3]}` : `${m[1]} --> |${m[2].trim()}| ${m[3]}`);
  }
  return out;
}
