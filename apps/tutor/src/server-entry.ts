import type { AppRoutesContext } from "@trellis/server";
import type { Hono } from "hono";
import { GraphAgent, graphAgentOptionsFromEnv, openTutorDeps } from "./graph-agent.js";
import { createTutorApp } from "./http-app.js";
import { buildTutorGraph, type TutorGraph } from "./tutor-graph.js";
import { serverTurns } from "./tutor-turns.js";

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
 * The `routes` export for `trellis.json`: the seed's `/chat` and `/resume_chat`, mounted by the server
 * under `/apps/<assistant id>/`. Their turns are runs of the server's run service (`ctx.runs`), like the
 * Agent Server API's: a conversation is a thread with a record, in `/threads/search` and the studio,
 * owned by the user who started it, whichever door drives it next. Without `runs` (built outside a
 * server) the turns run on the graph in this process.
 *
 * @example
 * const app = buildRoutes({ graph: served, runs, assistantId: "tutor" }); // POST /apps/tutor/chat
 */
export function buildRoutes(
  ctx: Pick<AppRoutesContext, "graph"> & Partial<Pick<AppRoutesContext, "assistantId" | "runs">>,
): Hono {
  const env = graphAgentOptionsFromEnv();
  const graph = ctx.graph as TutorGraph;
  const turns = ctx.runs ? serverTurns(ctx.runs, ctx.assistantId ?? "tutor") : undefined;
  return createTutorApp(new GraphAgent(graph, { provider: env.llmProvider ?? "offline", ...(turns ? { turns } : {}) }));
}
