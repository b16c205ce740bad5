/** An application module as the apps/* packages write them: an async graph factory and a route factory. */
import { Hono } from "hono";
import type { AppRoutesContext } from "../graph-registry.js";
import { askGraph } from "./fixture-graphs.js";

export async function makeGraph() {
  await Promise.resolve();
  return askGraph();
}

export function routes(ctx: AppRoutesContext) {
  const app = new Hono();
  app.get("/hello", (c) => c.json({ assistant: ctx.assistantId, graph: ctx.graph.name }));
  return app;
}
