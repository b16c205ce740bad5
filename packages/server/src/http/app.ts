/**
 * The HTTP layer's assembly: one Hono app with the server's middleware in order (arrival stamp, durable
 * answers, URL checks, CORS, tracing, body limit, auth), the public and app-authenticated routes, and
 * the Agent Server API, AG-UI and the apps' own routes behind the auth.
 */
import type { Store } from "@trellis/checkpoint";
import { TrellisError } from "@trellis/checkpoint";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppAuthRoute } from "../assistants/graph-registry.js";
import type { CronScheduler } from "../crons/cron-scheduler.js";
import type { ServerMetrics } from "../operations/metrics.js";
import { traceContextMiddleware } from "../operations/trace-context.js";
import { jsonLogger, type Logger } from "../operations/worker-log.js";
import { stampArrival } from "../runs/request-arrival.js";
import { limitStreams } from "../streams/stream-limits.js";
import { type Authenticate, authMiddleware, credentialAuth } from "./auth.js";
import { corsFor } from "./cors.js";
import { syncBeforeAnswer } from "./durable-answers.js";
import { errorJson, errorResponder, rejectMalformedUrl } from "./http-errors.js";
import { agUiRoutes } from "./routes/ag-ui.js";
import { assistantRoutes } from "./routes/assistants.js";
import { cronRoutes } from "./routes/crons.js";
import { metricsRoutes } from "./routes/metrics.js";
import { runRoutes } from "./routes/runs.js";
import { storeRoutes } from "./routes/store.js";
import { systemRoutes } from "./routes/system.js";
import { threadRoutes } from "./routes/threads.js";
import type { ServerContext, ServerEnv } from "./server-context.js";

/**
 * A route that answers without the server's auth: its method (`*` for any), full path (a trailing `/*`
 * covers the paths below), and how it checks its caller instead.
 *
 * @example
 * server.unauthenticatedRoutes.filter((r) => r.check === "unverified"); // development-mode webhooks
 */
export interface UnauthenticatedRoute {
  method: string;
  path: string;
  /** As the app declared it ({@link AppAuthRoute}). */
  check: AppAuthRoute["check"];
  detail: string;
  /** The app the route belongs to. */
  assistantId?: string;
}

const ROUTE_CHECKS = new Set(["verified", "refused", "unverified", "public"]);

/** Whether a declared route covers `method` and `path` (relative to the app's mount). */
function coversRoute(route: AppAuthRoute, method: string, path: string): boolean {
  const m = route.method.toUpperCase();
  if (m !== "*" && m !== method && !(m === "GET" && method === "HEAD")) return false;
  if (!route.path.endsWith("/*")) return path === route.path;
  const base = route.path.slice(0, -2);
  return path === base || path.startsWith(`${base}/`);
}

/** Checks what an app declared, so a typo cannot open a route the app meant to keep closed. */
function checkDeclared(assistantId: string, routes: readonly AppAuthRoute[]): void {
  for (const r of routes) {
    if (
      typeof r?.method !== "string" ||
      !/^(\*|[A-Za-z]+)$/.test(r.method) ||
      typeof r.path !== "string" ||
      !r.path.startsWith("/") ||
      !ROUTE_CHECKS.has(r.check) ||
      typeof r.detail !== "string"
    ) {
      throw new TrellisError(
        "INVALID_CONFIG",
        `Assistant "${assistantId}" declared an app-auth route that is not { method, path: "/…", check: verified|refused|unverified|public, detail }: ${JSON.stringify(r)}.`,
      );
    }
  }
}

/** What {@link buildApp} mounts: the server's context and the parts its routes serve. @internal */
export interface AppParts {
  ctx: ServerContext;
  metrics: ServerMetrics;
  crons: CronScheduler;
  itemStore: Store;
  log?: Logger;
  authenticate?: Authenticate;
  publicRoutes?: ReadonlyArray<{ path: string; app: Hono }>;
}

/**
 * Builds the server's Hono app from its parts; returns it with the routes that answer without the
 * server's auth.
 *
 * @example
 * const { app, open } = buildApp({ ctx, metrics, crons, itemStore });
 * const res = await app.request("/ok");
 * @internal
 */
export function buildApp(parts: AppParts): { app: Hono<ServerEnv>; open: UnauthenticatedRoute[] } {
  const { ctx, metrics, crons, itemStore } = parts;
  const { config: resolved, graphs, store, manager } = ctx;
  const app = new Hono<ServerEnv>();
  app.onError(errorResponder(parts.log ?? jsonLogger({ worker: manager.workerId })));
  app.notFound((c) => errorJson(c, "NOT_FOUND", `No route ${c.req.method} ${c.req.path}.`));
  // first, before any await: when the request arrived (a resume answers the pause pending then)
  app.use("*", stampArrival);
  // whatever a route committed is on disk through a power cut before its answer goes out
  app.use("*", syncBeforeAnswer(store));
  app.use("*", rejectMalformedUrl);
  app.use("*", corsFor(resolved.allowedOrigins));
  app.use("*", traceContextMiddleware);
  app.get("/ok", (c) => c.json({ ok: true }));
  const open: UnauthenticatedRoute[] = [{ method: "GET", path: "/ok", check: "public", detail: "liveness" }];
  for (const route of parts.publicRoutes ?? []) {
    app.route(route.path, route.app as unknown as Hono<ServerEnv>);
    open.push({ method: "*", path: `${route.path.replace(/\/+$/, "")}/*`, check: "public", detail: "public route" });
  }
  app.use(
    "*",
    bodyLimit({
      maxSize: resolved.limits.bodyBytes,
      onError: (c) => errorJson(c, "PAYLOAD_TOO_LARGE", `The request body exceeds ${resolved.limits.bodyBytes} bytes.`),
    }),
  );
  const serverAuth = authMiddleware(
    resolved.auth.enabled,
    parts.authenticate ?? credentialAuth(resolved.auth.credentials),
  );
  for (const hosted of graphs.values()) {
    // Apps that authenticate their own routes (webhooks, signed links) are mounted before the server's
    // auth. Only the routes they declared skip it; their other routes get the server's auth here.
    if (!hosted.routes || hosted.entry.routesAuth !== "app") continue;
    const prefix = `/apps/${hosted.assistantId}`;
    const declared = hosted.appAuthRoutes ?? [];
    checkDeclared(hosted.assistantId, declared);
    // Fail closed: only what the app declared skips the server's auth; an app that declared nothing is
    // mounted behind it like any other.
    const guard: MiddlewareHandler<ServerEnv> = (c, next) => {
      const path = c.req.path.slice(prefix.length) || "/";
      if (declared.some((r) => coversRoute(r, c.req.method, path))) return next();
      return serverAuth(c, next);
    };
    app.use(prefix, guard);
    app.use(`${prefix}/*`, guard);
    for (const r of declared) open.push({ ...r, path: `${prefix}${r.path}`, assistantId: hosted.assistantId });
    if (declared.length === 0) {
      console.warn(
        `[trellis-server] ${hosted.assistantId}: routesAuth "app" but the app declared none of its routes (declareAppAuthRoutes), so all of them stay behind the server's auth.`,
      );
    }
    app.route(prefix, hosted.routes as unknown as Hono<ServerEnv>);
  }
  app.use("*", serverAuth);
  app.route("/", metricsRoutes(metrics, { store, activeRuns: () => manager.activeRunIds.length }));
  app.route("/", systemRoutes(ctx));
  app.route("/assistants", assistantRoutes(ctx));
  app.route("/threads", threadRoutes(ctx));
  app.route("/", cronRoutes(ctx, crons));
  app.route("/", storeRoutes(itemStore, resolved.auth.enabled));
  app.route("/", runRoutes(ctx));
  app.use("/ag-ui/:assistant_id", limitStreams(ctx)); // an AG-UI run over SSE is one of the user's streams
  app.route("/ag-ui", agUiRoutes(ctx));
  for (const hosted of graphs.values()) {
    if (hosted.routes && hosted.entry.routesAuth !== "app") {
      app.route(`/apps/${hosted.assistantId}`, hosted.routes as unknown as Hono<ServerEnv>);
    }
  }
  return { app, open };
}

/**
 * The lines of a startup banner: whether auth is on, and the routes that answer without it.
 *
 * @example
 * for (const line of authBanner(true, open)) console.log(line);
 * @internal
 */
export function authBanner(enabled: boolean, open: readonly UnauthenticatedRoute[]): string[] {
  const width = Math.max(...open.map((r) => r.path.length));
  const lines = [
    enabled
      ? "Auth is on. Routes that answer without the server's credentials:"
      : 'Auth is off: every route answers without credentials ("auth": { "enabled": true } turns it on). Routes that would answer without them even with auth on:',
  ];
  for (const r of open) lines.push(`  ${r.method.padEnd(4)} ${r.path.padEnd(width)}  ${r.check}: ${r.detail}`);
  return lines;
}
