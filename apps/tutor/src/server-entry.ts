import type { Hono } from "hono";
import { GraphAgent, graphAgentOptionsFromEnv, openTutorDeps } from "./graph-agent.js";
import { createTutorApp } from "./http-app.js";
import { buildTutorGraph, type TutorGraph } from "./tutor-graph.js";

/**
 * The `graph` export for the Trellis server's `trellis.json`: builds the tutor graph from the
 * environment (model, RAG, `TUTOR_DB_PATH` for the teaching guides) without a checkpointer — the server
 * gives it its own saver.
 *
 * @example
 * // trellis.json
 * // { "graphs": { "tutor": { "module": "./apps/tutor/src/server-entry.ts", "graph": "buildGraph", "routes": "buildRoutes" } } }
 */
export function buildGraph(): TutorGraph {
  const deps = openTutorDeps(graphAgentOptionsFromEnv());
  return buildTutorGraph(deps);
}

/**
 * The `routes` export for `trellis.json`: the seed's `/chat` and `/resume_chat` over the graph as the
 * server serves it (with the server's saver), mounted by the server under `/apps/<assistant id>/`.
 *
 * @example
 * const app = buildRoutes({ graph: served }); // POST /apps/tutor/chat
 */
export function buildRoutes(ctx: { graph: unknown }): Hono {
  const env = graphAgentOptionsFromEnv();
  return createTutorApp(new GraphAgent(ctx.graph as TutorGraph, { provider: env.llmProvider ?? "offline" }));
}
