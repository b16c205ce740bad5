import { type Context, Hono } from "hono";
import { assistantJson } from "../api-shapes.js";
import type { HostedGraph } from "../graph-registry.js";
import { field, invalid, readBody } from "../request-body.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

function matches(hosted: HostedGraph, body: Record<string, unknown>): boolean {
  const graphId = field.string(body, "graph_id");
  const name = field.string(body, "name");
  const metadata = field.object(body, "metadata") ?? {};
  const json = assistantJson(hosted);
  if (graphId !== undefined && json.graph_id !== graphId) return false;
  if (name !== undefined && !json.name.includes(name)) return false;
  const meta = json.metadata as Record<string, unknown>;
  return Object.entries(metadata).every(([k, v]) => JSON.stringify(meta[k]) === JSON.stringify(v));
}

/**
 * `/assistants`: the graphs the config serves — search, count, get, graph drawing, schemas, subgraphs.
 *
 * @example
 * app.route("/assistants", assistantRoutes(ctx));
 */
export function assistantRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  const all = () => [...ctx.graphs.values()];

  app.post("/search", async (c) => {
    const body = await readBody(c);
    const limit = field.int(body, "limit", { min: 1, max: 1000 }) ?? 10;
    const offset = field.int(body, "offset", { min: 0, max: Number.MAX_SAFE_INTEGER }) ?? 0;
    const found = all().filter((h) => matches(h, body));
    const page = found.slice(offset, offset + limit).map(assistantJson);
    if (offset + limit < found.length) c.header("X-Pagination-Next", String(offset + limit));
    return c.json(page);
  });

  app.post("/count", async (c) => {
    const body = await readBody(c);
    return c.json(all().filter((h) => matches(h, body)).length);
  });

  app.post("/", async (c) => {
    const body = await readBody(c);
    const id = field.string(body, "assistant_id") ?? field.string(body, "graph_id");
    const hosted = id ? ctx.graphs.get(id) : undefined;
    if (hosted && field.string(body, "if_exists") === "do_nothing") return c.json(assistantJson(hosted));
    throw invalid("Assistants are the graphs named in trellis.json; add an entry there to serve another one.");
  });

  app.get("/:assistant_id", (c) => c.json(assistantJson(ctx.graphFor(c.req.param("assistant_id")))));

  app.get("/:assistant_id/graph", (c) => {
    const drawing = ctx.graphFor(c.req.param("assistant_id")).graph.getGraph();
    return c.json({
      nodes: drawing.nodes.map((n) => ({
        id: n.id,
        type: n.kind === "start" || n.kind === "end" ? "schema" : "runnable",
        data: n.kind === "start" || n.kind === "end" ? n.id : { id: ["trellis", n.kind, n.id], name: n.id },
        ...(n.metadata ? { metadata: n.metadata } : {}),
      })),
      edges: drawing.edges.map((e) => ({
        source: e.source,
        target: e.target,
        conditional: e.conditional,
        ...(e.label !== undefined ? { data: e.label } : {}),
      })),
    });
  });

  app.get("/:assistant_id/schemas", (c) => {
    const hosted = ctx.graphFor(c.req.param("assistant_id"));
    // JSON Schema built from the channels' declared schemas (a key without one is `{}`: anything)
    const schemas = hosted.graph.getSchemas();
    return c.json({
      graph_id: hosted.assistantId,
      input_schema: schemas.input,
      output_schema: schemas.output,
      state_schema: schemas.state,
      config_schema: schemas.config,
      context_schema: schemas.context,
    });
  });

  /** LangGraph's subgraph listing: namespace → the subgraph's schemas. */
  const subgraphs = (c: Context<ServerEnv>, namespace?: string) => {
    const graph = ctx.graphFor(c.req.param("assistant_id") as string).graph;
    const recurse = c.req.query("recurse") === "true" || c.req.query("recurse") === "1";
    const all = graph.getSubgraphs({ recurse: recurse || namespace !== undefined });
    const out: Record<string, unknown> = {};
    for (const [ns, sub] of Object.entries(all)) {
      if (namespace !== undefined && ns !== namespace && !(recurse && ns.startsWith(`${namespace}|`))) continue;
      out[ns] = {
        graph_id: sub.name,
        input_schema: sub.schemas.input,
        output_schema: sub.schemas.output,
        state_schema: sub.schemas.state,
        config_schema: sub.schemas.config,
      };
    }
    return c.json(out);
  };
  app.get("/:assistant_id/subgraphs", (c) => subgraphs(c));
  app.get("/:assistant_id/subgraphs/:namespace", (c) => subgraphs(c, c.req.param("namespace")));

  return app;
}
