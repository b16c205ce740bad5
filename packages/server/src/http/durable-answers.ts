import type { MiddlewareHandler } from "hono";
import type { RunStore } from "../stores/run-store.js";
import type { ServerEnv } from "./server-context.js";

/**
 * The server's edge: no answer leaves before the store's commits are durable through a power cut. The
 * run store commits its bookkeeping without waiting for the disk ({@link RunStore.syncCommits}); this
 * middleware, mounted before every route (the API, AG-UI over SSE, the public routes, the applications'
 * routes), syncs them after the handler and before the status line and headers go out — for a stream,
 * before its headers; its events are synced as they are sent (`RunManager.follow`). On SQLite a sync
 * costs one disk sync when anything was committed since the last one, nothing otherwise; on Postgres one
 * round trip, and a synchronous commit when the cluster's WAL is not flushed to its end (whichever
 * process wrote it). The liveness probe (`GET /ok`) reads and writes nothing, so it syncs nothing: it
 * answers while the database is unreachable, and costs Postgres no round trip.
 *
 * @example
 * app.use("*", syncBeforeAnswer(store));
 */
export function syncBeforeAnswer(store: RunStore): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method === "GET" && c.req.path === "/ok") return;
    await store.syncCommits?.();
  };
}
