import type { GraphDrawing, Xray } from "@trellis/core";
import type { ApiGraphJson } from "@trellis/protocol";
import { invalid } from "../http/request-body.js";

/**
 * A graph drawing in the JSON shape of LangGraph's `GET /assistants/{id}/graph`: START and END as
 * `schema` nodes, the others as `runnable` nodes (expanded subgraph nodes keep their `parent:child` id),
 * conditional edges with their path-map key as `data`.
 *
 * @example
 * graphJson(graph.getGraph({ xray: true })).nodes.map((n) => n.id); // ["__start__", "review:check", …]
 */
export function graphJson(drawing: GraphDrawing): ApiGraphJson {
  return {
    nodes: drawing.nodes.map((n) => ({
      id: n.id,
      type: n.kind === "start" || n.kind === "end" ? ("schema" as const) : ("runnable" as const),
      data: n.kind === "start" || n.kind === "end" ? n.id : { id: ["trellis", n.kind, n.id], name: n.id },
      ...(n.metadata ? { metadata: n.metadata } : {}),
    })),
    edges: drawing.edges.map((e) => ({
      source: e.source,
      target: e.target,
      conditional: e.conditional,
      ...(e.label !== undefined ? { data: e.label } : {}),
    })),
  };
}

/**
 * The `xray` query parameter as the SDK sends it (`client.assistants.getGraph(id, { xray })`): `true`,
 * `false` or a depth; absent is `false`. Anything else is a 400 saying what it takes.
 *
 * @example
 * xrayParam("2"); // 2
 */
export function xrayParam(raw: string | undefined): Xray {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  throw invalid(`xray must be true, false or a depth (a whole number ≥ 0), not "${raw}".`);
}
