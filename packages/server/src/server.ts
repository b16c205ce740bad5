import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import type { Hono } from "hono";
import { type HostedGraph, loadGraphs } from "./assistants/graph-registry.js";
import { loadConfig, type ResolvedConfig, resolveConfig, type TrellisConfig } from "./config/config.js";
import { storeOptionsOf } from "./config/store-config.js";
import { CronScheduler, type CronSchedulerOptions } from "./crons/cron-scheduler.js";
import { authBanner, buildApp, type UnauthenticatedRoute } from "./http/app.js";
import { type Authenticate, credentialAuth } from "./http/auth.js";
import { answerClientError, requestErrorAnswer } from "./http/http-errors.js";
import { attachAgUiWebSocket } from "./http/routes/ag-ui.js";
import { lookups, type ServerContext, type ServerEnv } from "./http/server-context.js";
import { rateLimitedLogger, warningKey } from "./operations/log-rate-limit.js";
import { ServerMetrics } from "./operations/metrics.js";
import { RetentionSweeper } from "./operations/retention.js";
import { jsonLogger, type Logger } from "./operations/worker-log.js";
import { RunManager } from "./runs/run-manager.js";
import { RunService, type RunServiceParts } from "./runs/run-service.js";
import { openAssistants } from "./stores/open-assistant-store.js";
import { openCronStore } from "./stores/open-cron-store.js";
import { openItemStore } from "./stores/open-item-store.js";
import { openStorage } from "./stores/open-storage.js";
import type { RunStore } from "./stores/run-store.js";
import { limitStoreByUser, storeUsageOf } from "./stores/store-quota.js";
import { credentialUsersOf, UserLimits } from "./stores/user-limits.js";

export type { UnauthenticatedRoute } from "./http/app.js";

/**
 * Options of {@link createServer} beyond the config file.
 *
 * @example
 * const options: CreateServerOptions = { env: { PORT: "8123" }, workers: 0 }; // an API-only process
 * const server = await createServer(await loadConfig("./trellis.json"), options);
 */
export interface CreateServerOptions {
  /** Resolves credentials to a user; default: the config's API keys and bearer tokens. */
  authenticate?: Authenticate;
  /**
   * Where the run manager's log lines go (run start and end, lost leases, recovery…). Default: JSON
   * lines (pretty on a TTY) at `TRELLIS_LOG_LEVEL`, info only in scale-out. See docs/observability.md.
   */
  log?: Logger;
  /** Environment read for PORT and service URLs. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Runs executed at once by this process. Default: the queue's concurrency (4). 0 makes an API-only
   * process that leaves runs to `trellis-server worker` processes (scale-out).
   */
  workers?: number;
  /**
   * Extra Hono apps mounted before the body limit and auth, so they answer without credentials: static
   * web apps such as the studio (`trellis serve` mounts it at `/studio`). Keep them free of data: the API
   * they call stays behind auth.
   *
   * @example
   * await createServer(config, { publicRoutes: [{ path: "/studio", app: staticFiles("packages/studio/dist") }] });
   */
  publicRoutes?: ReadonlyArray<{ path: string; app: Hono }>;
  /** The cron scheduler's clock and look interval (tests move a `ManualClock`). */
  crons?: CronSchedulerOptions;
}

/**
 * A created server: the Hono app, its parts, and how to listen and stop.
 *
 * @example
 * const server: TrellisServer = await createServer(await loadConfig("./trellis.json"));
 * const { url } = await server.listen(8123);
 * process.on("SIGTERM", () => void server.close());
 */
export interface TrellisServer {
  /** The Hono app: `app.request(...)` in tests, `app.fetch` anywhere Fetch handlers run. */
  app: Hono<ServerEnv>;
  config: ResolvedConfig;
  graphs: ReadonlyMap<string, HostedGraph>;
  saver: CheckpointSaver;
  store: RunStore;
  manager: RunManager;
  /** The one run path: start, follow, wait for and cancel runs (what every door calls). */
  runs: RunService;
  /** The cron scheduler: started in processes that execute runs; `tick()` takes the due ticks now. */
  crons: CronScheduler;
  /** The long-term memory store: the Store API's, and `ctx.store` of the graphs this server runs. */
  itemStore: Store;
  /**
   * Every route that answers without the server's auth (when it is on; with it off, every route does):
   * `/ok`, the public routes, and the routes that apps mounted with `routesAuth: "app"` declared, with
   * the check each declared. An app that declared none has no route here: all stay behind the auth.
   */
  unauthenticatedRoutes: readonly UnauthenticatedRoute[];
  /** Lines for a startup banner: whether auth is on, and {@link unauthenticatedRoutes}. */
  authBanner(): string[];
  /** Starts a Node HTTP listener (and the AG-UI WebSocket) on `port` (default: the config's). */
  listen(port?: number): Promise<{ server: Server; port: number; url: string }>;
  /** Stops the listener and the workers (in-flight runs stay queued for the next start), closes stores. */
  close(): Promise<void>;
}

/**
 * Builds a server from a config: opens the saver and the run store, loads the graphs (injecting the
 * saver), and assembles the Agent Server API, AG-UI and the applications' own routes. Workers start at
 * once and continue runs a previous process left in flight.
 *
 * @example
 * const server = await createServer(await loadConfig("trellis.json"));
 * const { url } = await server.listen();
 * console.log(`listening on ${url}`);
 */
export async function createServer(config: TrellisConfig, options: CreateServerOptions = {}): Promise<TrellisServer> {
  const resolved = resolveConfig(config, options.env ?? process.env);
  // checked before anything is opened: a bad `store` section leaves no file locked
  const storeOptions = await storeOptionsOf(config.store, resolved.baseDir);
  const storage = await openStorage(resolved);
  const { saver, store } = storage;
  const metrics = new ServerMetrics();
  const hub = metrics.countFollowers(storage.hub);
  // the run service exists before the graphs so their routes can hold it; its parts are filled below
  const runParts: RunServiceParts = {
    store,
    saver,
    graphs: new Map(),
    manager: undefined as unknown as RunManager,
    authEnabled: resolved.auth.enabled,
  };
  const runs = new RunService(runParts);
  const graphs = await loadGraphs(resolved.graphs, saver, resolved.baseDir, runs, {
    maxPayload: resolved.limits.bodyBytes,
    // the apps' own lines (webhooks received or refused…) go where the embedding server's lines go
    ...(options.log ? { log: options.log } : {}),
  });
  const assistants = await openAssistants(saver, graphs, {
    authEnabled: resolved.auth.enabled,
    schema: resolved.saver.kind === "postgres" ? resolved.saver.schema : undefined,
    log: options.log ?? jsonLogger({}),
  });
  runParts.assistants = assistants;
  // beside the saver (its SQLite file or Postgres schema); graphs get it as ctx.store through each run's config
  const schema = resolved.saver.kind === "postgres" ? resolved.saver.schema : undefined;
  const rawItemStore = await openItemStore(saver, { ...storeOptions, schema });
  // each user's items and bytes are limited (limits.storeItemsPerUser, storeBytesPerUser) with auth on
  const itemStore = resolved.auth.enabled
    ? limitStoreByUser(rawItemStore, storeUsageOf(saver, { schema }), resolved.limits)
    : rawItemStore;
  const concurrency = options.workers ?? resolved.queue.concurrency ?? 4;
  const manager = new RunManager({
    assistants,
    store,
    hub,
    saver,
    graphs,
    concurrency,
    itemStore,
    limits: resolved.limits,
    ...(resolved.prices ? { prices: resolved.prices } : {}),
    ...(storage.shared ? { shared: storage.shared } : {}),
    ...(storage.wake ? { wake: storage.wake } : {}),
    onLog: (entry) => metrics.observe(entry),
    ...(options.log ? { log: options.log } : {}),
  });
  runParts.graphs = graphs;
  runParts.manager = manager;
  const cronStore = await openCronStore(saver, resolved.saver.kind === "postgres" ? resolved.saver : {});
  const limits = new UserLimits({ limits: resolved.limits, enabled: resolved.auth.enabled, store, crons: cronStore });
  runParts.limits = limits;
  const parts = { config: resolved, graphs, assistants, saver, store, manager, authEnabled: resolved.auth.enabled };
  const ctx: ServerContext = { ...parts, runs, limits, ...lookups(parts) };
  const userActive = options.authenticate ? undefined : credentialUsersOf(resolved);
  const crons = new CronScheduler(
    { crons: cronStore, runs, store, saver, manager, limits },
    {
      log: jsonLogger({ worker: manager.workerId }, { quiet: !storage.shared }),
      ...(userActive ? { userActive } : {}),
      ...options.crons,
    },
  );

  const { app, open } = buildApp({
    ctx,
    metrics,
    crons,
    itemStore,
    ...(options.log ? { log: options.log } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    ...(options.publicRoutes ? { publicRoutes: options.publicRoutes } : {}),
  });
  await manager.start();
  if (concurrency > 0) crons.start(); // only processes that execute runs schedule crons
  // one process of the cluster sweeps at a time (a lease in the store); off unless configured
  const sweeper = new RetentionSweeper({
    store,
    saver,
    settings: resolved.retention,
    log: rateLimitedLogger(jsonLogger({ worker: manager.workerId }), { key: warningKey }),
  });
  sweeper.start();

  let server: Server | undefined;
  let closeWs: (() => Promise<void>) | undefined;
  return {
    app,
    config: resolved,
    graphs,
    saver,
    store,
    manager,
    runs,
    crons,
    itemStore,
    unauthenticatedRoutes: open,
    authBanner: () => authBanner(resolved.auth.enabled, open),
    async listen(port = resolved.port) {
      const started = await new Promise<Server>((resolve) => {
        // a request that cannot become a Fetch Request, or that Node's parser refuses, gets a JSON 4xx
        const listener = getRequestListener(app.fetch, { hostname: resolved.host, errorHandler: requestErrorAnswer });
        const s = createHttpServer(listener).on("clientError", answerClientError);
        s.listen(port, resolved.host, () => resolve(s));
      });
      server = started;
      closeWs = attachAgUiWebSocket(started, ctx, options.authenticate ?? credentialAuth(resolved.auth.credentials));
      const actual = (started.address() as AddressInfo).port;
      return { server: started, port: actual, url: `http://${resolved.host}:${actual}` };
    },
    async close() {
      await closeWs?.();
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections?.();
        });
      }
      await crons.stop();
      await sweeper.stop();
      await manager.stop();
      metrics.close();
      await itemStore.close?.();
      await assistants.store.close();
      await store.close();
      await saver.close?.();
      await storage.close();
    },
  };
}

/**
 * Loads `trellis.json` (or `path`), creates the server and listens on `PORT` (default 8123). Stops
 * cleanly on SIGINT/SIGTERM: runs in flight stay queued and continue at the next start. With a Redis
 * queue (scale-out) the process serves the API only and leaves runs to workers, unless `workers` says
 * otherwise.
 *
 * @example
 * // bin: trellis-server [path/to/trellis.json]
 * await startServer("trellis.json");
 */
export async function startServer(path = "trellis.json", options: CreateServerOptions = {}): Promise<TrellisServer> {
  const config = await loadConfig(path);
  const scaleOut = resolveConfig(config, options.env ?? process.env).queue.kind === "redis";
  const server = await createServer(config, { ...(scaleOut ? { workers: 0 } : {}), ...options });
  const { url } = await server.listen();
  console.log(`[trellis-server] serving ${[...server.graphs.keys()].join(", ") || "no graphs"} on ${url}`);
  for (const line of server.authBanner()) console.log(`[trellis-server] ${line}`);
  stopOnSignals(server);
  return server;
}

/**
 * Runs queued runs without serving HTTP: `trellis-server worker [path]`. Any number of workers share
 * the config's Postgres saver and Redis queue; each takes runs whose thread is free.
 *
 * @example
 * await startWorker("trellis.json");
 */
export async function startWorker(path = "trellis.json", options: CreateServerOptions = {}): Promise<TrellisServer> {
  const server = await createServer(await loadConfig(path), options);
  console.log(`[trellis-server] worker ${server.manager.workerId} for ${[...server.graphs.keys()].join(", ")}`);
  stopOnSignals(server);
  return server;
}

function stopOnSignals(server: TrellisServer): void {
  const shutdown = () => {
    // runs in flight get 10 s to finish their superstep, then go back to the queue
    void server.manager
      .stop({ drainMs: 10_000 })
      .then(() => server.close())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
