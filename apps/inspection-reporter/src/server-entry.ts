import { join } from "node:path";
import { TrellisError } from "@trellis/core";
import type { AppRoutesContext } from "@trellis/server";
import type { Hono } from "hono";
import { DEFAULT_WS_PATH, inspectionSocketHandler } from "./ag-ui/ag-ui-websocket.js";
import { inspectionRoutes } from "./ag-ui/inspection-routes.js";
import { AGENT_IDS } from "./agents/agent-definitions.js";
import { getToolsForAgent } from "./agents/agent-tools.js";
import type { InspectionGraph } from "./agents/inspection-graph.js";
import { createInspectionReporter, type InspectionReporter } from "./inspection-reporter.js";
import { InspectionOrchestrator } from "./orchestrator/orchestrator.js";
import { deleteThreadReports } from "./orchestrator/thread-reports.js";

let shared: Promise<InspectionReporter> | undefined;

/**
 * The process-wide app the Trellis server's exports use: configured from the environment (models,
 * `INSPECTION_DATA_DIR`), created on first use — nothing starts at import time — with the MCP server
 * processes running until {@link closeDefaultInspectionReporter}.
 *
 * @example
 * const app = await defaultInspectionReporter();
 * app.mcp.tools.inspection.length; // 4
 */
export function defaultInspectionReporter(): Promise<InspectionReporter> {
  shared ??= createInspectionReporter().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/**
 * Makes `app` the process-wide app that {@link buildGraph} serves: how the CLI and tests run an app
 * they configured themselves (models, data directory, logger) behind an in-process Trellis server.
 * Call it before the server loads the graph; a server already running keeps the graph it loaded.
 *
 * @example
 * useInspectionReporter(await createInspectionReporter({ models: createOfflineModels() }));
 * const trellis = await createServer(defaultServerConfig(), { workers: 1 });
 */
export function useInspectionReporter(app: InspectionReporter): void {
  shared = Promise.resolve(app);
}

/**
 * Stops the MCP servers of the process-wide app (tests, shutdown).
 *
 * @example
 * afterAll(closeDefaultInspectionReporter);
 */
export async function closeDefaultInspectionReporter(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (current) await (await current).close();
}

/**
 * The `graph` export for `trellis.json`: the agent network, without a checkpointer (the server injects
 * its saver). Served through the Agent Server API, a paused thread shows the clarification interrupt
 * and is resumed with `command: { resume }`.
 *
 * @example
 * // trellis.json
 * { "graphs": { "inspection-reporter": { "module": "@trellis/app-inspection-reporter/server", "graph": "buildGraph", "routes": "createRoutes" } } }
 */
export async function buildGraph(): Promise<InspectionGraph> {
  return (await defaultInspectionReporter()).graph;
}

/** The names of every agent's own tools (frontend tools may not take them). */
function agentToolNames(app: InspectionReporter): string[] {
  const sources = { mcpTools: app.mcp.tools, settings: app.settings };
  return [...new Set(AGENT_IDS.flatMap((id) => getToolsForAgent(id, sources).map((t) => t.name)))];
}

/**
 * The `routes` export for `trellis.json`, mounted under `/apps/inspection-reporter/`: AG-UI over SSE
 * (`POST /ag-ui`) and over a WebSocket (`/ws`), `POST /chat`, `GET /threads/:id`, `GET /health` — all
 * through the seed's orchestrator over the server's run service (`ctx.runs`), so every turn is a run of
 * the server with a thread record, the queue, and the graph's paused-input policy.
 *
 * @example
 * const routes = await createRoutes({ assistantId: "inspection-reporter", graph: served, runs: server.runs });
 */
export async function createRoutes(ctx: AppRoutesContext): Promise<Hono> {
  if (!ctx.runs) {
    throw new TrellisError(
      "INVALID_CONFIG",
      "The inspection-reporter routes run through a Trellis server's run service (ctx.runs): serve them with createServer or startInspectionServer.",
    );
  }
  const app = await defaultInspectionReporter();
  const orchestrator = new InspectionOrchestrator(ctx.runs, {
    assistantId: ctx.assistantId,
    logger: app.logger,
    settings: app.settings,
    toolNames: agentToolNames(app),
  });
  // the reports a thread started go with it (read from its state before the server deletes that)
  ctx.onThreadDeleted?.(async ({ threadId, graphId }) => {
    if (graphId !== ctx.assistantId) return;
    const state = await ctx.graph.getState({ threadId });
    await deleteThreadReports(join(app.dataDir, "reports"), state.values as Record<string, unknown>);
  });
  // Under the Trellis server, the AG-UI WebSocket lives at /apps/inspection-reporter/ws.
  const sockets = inspectionSocketHandler(orchestrator, { maxPayload: ctx.maxPayload });
  ctx.onUpgrade?.((req, socket, head, user) => {
    if (new URL(req.url ?? "/", "http://localhost").pathname !== DEFAULT_WS_PATH) return socket.destroy();
    sockets.handle(req, socket, head, user);
  });
  return inspectionRoutes(orchestrator, { mcp: app.mcp }) as unknown as Hono;
}
