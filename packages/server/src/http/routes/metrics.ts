import { Hono } from "hono";
import type { MetricsSources, ServerMetrics } from "../../operations/metrics.js";
import type { ServerEnv } from "../server-context.js";

/**
 * `GET /metrics`: the server's metrics in Prometheus' text format (version 0.0.4). Mounted behind the
 * server's auth: with auth on, a scraper sends an API key or bearer token like any client.
 *
 * @example
 * app.route("/", metricsRoutes(metrics, { store, activeRuns: () => manager.activeRunIds.length }));
 */
export function metricsRoutes(metrics: ServerMetrics, sources: MetricsSources): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.get("/metrics", async (c) => {
    const text = await metrics.render(sources);
    return c.body(text, 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
  });
  return app;
}
