/**
 * What the Trellis server loads from `trellis.json`:
 *
 * ```json
 * "twi-author": { "module": "./apps/twi-author/src/index.ts", "graph": "twiAuthorGraph", "routes": "twiAuthorRoutes" }
 * ```
 *
 * The server gives the graph its own checkpoint saver and mounts the routes under
 * `/apps/twi-author/`. Everything else (model, PDFs, audit log, channels) comes from the environment,
 * as `loadTwiConfig` reads it. Nothing is opened until the server calls these.
 */
import { MemorySaver, TrellisError } from "@trellis/core";
import type { RunService, ThreadDataHook } from "@trellis/server";
import type { Hono } from "hono";
import { BackgroundTasks } from "./channels/background-tasks.js";
import { createTwiRoutes } from "./channels/twi-routes.js";
import { type TwiRouteAccess, twiRouteAccess } from "./channels/webhook-access.js";
import type { TwiLog } from "./channels/webhook-log.js";
import { createTwiApp, type TwiApp } from "./create-twi-app.js";
import type { TwiGraph } from "./graph.js";
import { pdfFolder } from "./nodes.js";
import { TwiAssistant } from "./twi-assistant.js";

let shared: TwiApp | undefined;

/** The app the server entry points share (built on first use, from the environment). */
function hostedApp(): TwiApp {
  // The server replaces the saver with its own (withCheckpointer); a memory saver avoids opening a file.
  shared ??= createTwiApp({ checkpointer: new MemorySaver() });
  return shared;
}

/**
 * The graph export for `trellis.json` (`"graph": "twiAuthorGraph"`).
 *
 * @example
 * const graph = twiAuthorGraph().withCheckpointer(saver);
 */
export function twiAuthorGraph(): TwiGraph {
  return hostedApp().graph;
}

/**
 * Background work of the mounted webhooks, for a graceful shutdown (`await twiAuthorTasks.idle()`).
 *
 * @example
 * await twiAuthorTasks.idle();
 */
export const twiAuthorTasks = new BackgroundTasks();

/**
 * The routes export for `trellis.json` (`"routes": "twiAuthorRoutes"`): the Teams and Telegram
 * webhooks and the signed PDF links. Every conversation they start or continue is a run of the
 * server's run service (`ctx.runs`): one thread record per conversation, visible to
 * `GET /threads/{id}`, `/threads/search` (`metadata.graph_id == "twi-author"`) and the studio, under
 * the server's queue and multitask strategy. Mounted with
 * `"routesAuth": "app"`, it declares those three routes and how each checks its caller
 * ({@link twiRouteAccess}); its other routes stay behind the server's auth.
 *
 * @example
 * const routes = twiAuthorRoutes({ assistantId: "twi-author", graph: hosted.graph, runs: server.runs });
 */
export function twiAuthorRoutes(ctx: {
  assistantId: string;
  graph: TwiGraph;
  runs?: RunService;
  declareAppAuthRoutes?: (routes: readonly TwiRouteAccess[]) => void;
  /** The server's structured log: one line per webhook received or refused. */
  log?: TwiLog;
  /** The server's registry of per-thread app data: a deleted thread's PDFs go with it. */
  onThreadDeleted?: (hook: ThreadDataHook) => void;
}): Hono {
  if (!ctx.runs) {
    throw new TrellisError(
      "INVALID_CONFIG",
      "The twi-author routes run conversations through a Trellis server's run service (ctx.runs): mount them with createServer (trellis.json), or use createTwiApp, whose assistant opens a server in-process.",
    );
  }
  const app = hostedApp();
  ctx.declareAppAuthRoutes?.(twiRouteAccess(app.config));
  // a conversation's PDFs (`<tenant>/<thread>/…`) go with its thread, read from its state before that goes
  ctx.onThreadDeleted?.(async ({ threadId, graphId }) => {
    if (graphId !== ctx.assistantId) return;
    const state = await ctx.graph.getState({ threadId });
    const tenant = (state.values as { tenant_id?: unknown }).tenant_id;
    if (typeof tenant === "string" && tenant !== "") await app.blobs.deleteFolder(pdfFolder(tenant, threadId));
  });
  return createTwiRoutes({
    assistant: new TwiAssistant({ runs: ctx.runs, assistantId: ctx.assistantId }),
    blobs: app.blobs,
    signer: app.signer,
    config: app.config,
    tasks: twiAuthorTasks,
    ...(ctx.log ? { log: ctx.log } : {}),
  });
}
