import { existsSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import type { Duplex } from "node:stream";
import { pathToFileURL } from "node:url";
import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { CompiledGraph } from "@trellis/core";
import type { Hono } from "hono";
import type { GraphEntry } from "../config/config.js";
import { appLogger } from "../operations/app-log.js";
import type { Logger } from "../operations/worker-log.js";
import type { RunService, ThreadDataHook } from "../runs/run-service.js";

/**
 * A graph as any `CompiledGraph`, whatever its schema.
 *
 * @example
 * const graphs: AnyGraph[] = [...server.graphs.values()].map((h) => h.graph);
 */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds graphs of every schema
export type AnyGraph = CompiledGraph<any>;

/**
 * Takes over a WebSocket upgrade under `/apps/<id>/`. `user` is the authenticated user when the
 * server's auth is on (the server answers 401 itself before calling), else null.
 *
 * @example
 * const wss = new WebSocketServer({ noServer: true });
 * const onSocket: AppUpgradeHandler = (req, socket, head, user) =>
 *   wss.handleUpgrade(req, socket, head, (ws) => serve(ws, user));
 * ctx.onUpgrade?.(onSocket);
 */
export type AppUpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer, user: string | null) => void;

/**
 * A route of an app mounted with `routesAuth: "app"` that answers without the server's auth, and how
 * it checks its caller instead. Paths are relative to `/apps/<id>`; a trailing `/*` covers the paths
 * below (`/blobs/*`).
 *
 * @example
 * ctx.declareAppAuthRoutes?.([{ method: "POST", path: "/hook", check: "verified", detail: "HMAC of the body (HOOK_SECRET)" }]);
 */
export interface AppAuthRoute {
  /** `GET` (also covers `HEAD`), `POST`, … */
  method: string;
  path: string;
  /**
   * `verified`: checks a proof (a signature, a token, a signed link); `refused`: its check is not
   * configured, so it answers 503 to everyone; `unverified`: anyone can call it (a development mode
   * someone opted into); `public`: holds no data and needs no proof.
   */
  check: "verified" | "refused" | "unverified" | "public";
  /** What it checks, or which setting would turn the check on: shown in the startup banner. */
  detail: string;
}

/**
 * What an application's route factory receives.
 *
 * @example
 * export function routes(ctx: AppRoutesContext): Hono {
 *   const app = new Hono();
 *   app.get("/state/:threadId", async (c) => {
 *     const snapshot = await ctx.graph.getState({ threadId: c.req.param("threadId") });
 *     return c.json(snapshot.values);
 *   });
 *   return app;
 * }
 */
export interface AppRoutesContext {
  assistantId: string;
  /**
   * The graph as the server serves it (with the server's saver): read its state, draw it. Start and
   * resume runs through `runs`, so they get a thread record, the queue and the multitask strategy.
   */
  graph: AnyGraph;
  /**
   * The server's run service: the one path for starting, resuming, following and cancelling runs.
   * Absent when the routes are built outside a server (an app's own tests or CLI).
   */
  runs?: RunService;
  /**
   * Registers what the app keeps per thread outside the server's stores (a transcript in Redis, files
   * on disk): `hook` runs for every thread the server deletes (`DELETE /threads/{id}`, an assistant
   * deleted with its threads, the temporary thread of a stateless run or cron tick), before the thread's
   * record goes, so a new thread with the same id finds nothing of it. Make it idempotent. A route that
   * serves a thread's data checks first that the caller may use the thread:
   * `await ctx.runs.thread(threadId, { user: c.get("user") })` (404 otherwise). Absent outside a server.
   *
   * @example
   * ctx.onThreadDeleted?.(async ({ threadId }) => {
   *   await transcripts.delete(threadId);
   * });
   * app.get("/threads/:id/messages", async (c) => {
   *   await ctx.runs?.thread(c.req.param("id"), { user: c.get("user") }); // 404 unless the caller's
   *   return c.json(await transcripts.list(c.req.param("id")));
   * });
   */
  onThreadDeleted?: (hook: ThreadDataHook) => void;
  /**
   * Registers the app's WebSocket endpoint: upgrades of paths under `/apps/<id>/` go to `handler`.
   * Absent when the routes are built outside a server (tests, the app's own CLI).
   */
  onUpgrade?: (handler: AppUpgradeHandler) => void;
  /**
   * The largest WebSocket message the app's sockets may take: the server's `limits.bodyBytes`. Give it
   * to the app's `WebSocketServer` (`new WebSocketServer({ noServer: true, maxPayload: ctx.maxPayload })`;
   * ws's own default is 100 MiB), and listen for each socket's `'error'` event (ws closes the socket on
   * a bad frame; an `'error'` nobody listens to ends the process). Absent outside a server.
   */
  maxPayload?: number;
  /**
   * With `routesAuth: "app"`: declares the routes that answer without the server's auth, each with its
   * own check. Only those do: the app's other routes stay behind the server's auth. An app that declares
   * nothing is mounted whole before the auth, and the startup banner says so.
   */
  declareAppAuthRoutes?: (routes: readonly AppAuthRoute[]) => void;
  /**
   * The server's structured log for the app's own lines (a webhook received or refused…): one JSON
   * line each, with `app: <assistant id>`, at the server's levels. A `warn` line with a `reason` is
   * limited per event and reason (10 a minute, then one `log-suppressed` line), so refused requests
   * cannot flood the log. Never put secrets or request bodies in a line. Absent outside a server.
   *
   * @example
   * ctx.log?.({ level: "warn", event: "webhook-refused", route: "/hook", reason: "bad-signature", status: 401 });
   */
  log?: Logger;
}

/**
 * One hosted assistant.
 *
 * @example
 * const hosted: HostedGraph | undefined = server.graphs.get("inspection");
 * console.log(hosted?.entry.module, hosted?.routes !== undefined, hosted?.createdAt);
 */
export interface HostedGraph {
  assistantId: string;
  entry: GraphEntry;
  graph: AnyGraph;
  routes?: Hono;
  /** The app's WebSocket upgrade handler, if its routes registered one. */
  upgrade?: AppUpgradeHandler;
  /** The routes the app declared with `declareAppAuthRoutes`. */
  appAuthRoutes?: readonly AppAuthRoute[];
  createdAt: string;
}

/**
 * Loads the graphs a config names, injects `saver` into each with `withCheckpointer`, and builds the
 * optional Hono routes of each application.
 *
 * @example
 * const graphs = await loadGraphs({ tutor: { module: "@acme/tutor", graph: "buildGraph" } }, saver, process.cwd());
 * graphs.get("tutor")?.graph.getGraph();
 */
export async function loadGraphs(
  entries: Record<string, GraphEntry>,
  saver: CheckpointSaver,
  baseDir: string,
  runs?: RunService,
  door: { maxPayload?: number; log?: Logger } = {},
): Promise<Map<string, HostedGraph>> {
  const out = new Map<string, HostedGraph>();
  const createdAt = new Date().toISOString();
  for (const [assistantId, entry] of Object.entries(entries)) {
    const mod = await importModule(entry.module, baseDir, assistantId);
    const exportName = entry.graph ?? "graph";
    let value = mod[exportName];
    if (value === undefined) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `Assistant "${assistantId}": module ${entry.module} has no export "${exportName}". Exports: ${Object.keys(mod).join(", ") || "none"}.`,
      );
    }
    if (typeof value === "function" && !(value instanceof CompiledGraph)) value = await (value as () => unknown)();
    value = trellisGraphOf(value);
    if (!isCompiledGraph(value)) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `Assistant "${assistantId}": export "${exportName}" of ${entry.module} is neither a CompiledGraph nor a function returning one.`,
      );
    }
    const graph = value.withCheckpointer(saver);
    const hosted: HostedGraph = { assistantId, entry, graph, createdAt };
    if (entry.routes) {
      hosted.routes = await buildRoutes(mod, entry, {
        assistantId,
        graph,
        ...(runs ? { runs, onThreadDeleted: (hook: ThreadDataHook) => void runs.onThreadDeleted(hook) } : {}),
        ...(door.maxPayload !== undefined ? { maxPayload: door.maxPayload } : {}),
        log: appLogger(assistantId, door.log),
        onUpgrade: (handler) => {
          hosted.upgrade = handler;
        },
        declareAppAuthRoutes: (routes) => {
          hosted.appAuthRoutes = [...(hosted.appAuthRoutes ?? []), ...routes];
        },
      });
    }
    out.set(assistantId, hosted);
  }
  return out;
}

/** The Trellis graph inside a `@trellis/langgraph` compiled graph (which keeps LangGraph's API outside); other values as they are. */
function trellisGraphOf(value: unknown): unknown {
  const inner = (value as Record<symbol, unknown> | null)?.[Symbol.for("trellis.compiledGraph")];
  return inner ?? value;
}

function isCompiledGraph(value: unknown): value is AnyGraph {
  // instanceof fails when two copies of @trellis/core are loaded (source and dist); duck-type as well.
  return (
    value instanceof CompiledGraph ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as AnyGraph).withCheckpointer === "function" &&
      typeof (value as AnyGraph).streamEvents === "function")
  );
}

async function buildRoutes(mod: Record<string, unknown>, entry: GraphEntry, ctx: AppRoutesContext): Promise<Hono> {
  const name = entry.routes as string;
  let value = mod[name];
  if (typeof value === "function" && typeof (value as { fetch?: unknown }).fetch !== "function") {
    value = await (value as (c: AppRoutesContext) => unknown)(ctx);
  }
  if (typeof value !== "object" || value === null || typeof (value as Hono).fetch !== "function") {
    throw new TrellisError(
      "INVALID_CONFIG",
      `Assistant "${ctx.assistantId}": export "${name}" of ${entry.module} is neither a Hono app nor a function returning one.`,
    );
  }
  return value as Hono;
}

/**
 * Imports a module named by a config entry. Paths are resolved against the config's directory; a
 * `.ts` path that the runtime cannot load (plain Node) falls back to its compiled twin
 * (`src/x.ts` → `dist/x.js`). Package specifiers resolve as usual, then from the config's directory.
 * @internal
 */
export async function importModule(
  specifier: string,
  baseDir: string,
  assistantId: string,
): Promise<Record<string, unknown>> {
  const isPath = specifier.startsWith(".") || isAbsolute(specifier);
  const attempts: string[] = [];
  if (isPath) {
    const file = resolve(baseDir, specifier);
    attempts.push(pathToFileURL(file).href);
    const compiled = file.replace(/([/\\])src([/\\])(.*)\.(m?)ts$/, "$1dist$2$3.$4js");
    if (compiled !== file && existsSync(compiled)) attempts.push(pathToFileURL(compiled).href);
  } else {
    attempts.push(specifier);
    try {
      attempts.push(pathToFileURL(createRequire(resolve(baseDir, "trellis.json")).resolve(specifier)).href);
    } catch {
      // not resolvable from the config's directory either; the first attempt reports the error
    }
  }
  let first: unknown;
  for (const target of attempts) {
    try {
      return (await import(target)) as Record<string, unknown>;
    } catch (error) {
      first ??= error;
      const code = (error as { code?: string }).code;
      if (code !== "ERR_UNKNOWN_FILE_EXTENSION" && code !== "ERR_MODULE_NOT_FOUND") break;
    }
  }
  throw new TrellisError(
    "INVALID_CONFIG",
    `Assistant "${assistantId}": cannot import ${specifier}: ${(first as Error)?.message ?? String(first)}`,
    { cause: first },
  );
}
