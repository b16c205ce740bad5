import type { ApiServerInfo } from "@trellis/protocol";
import { Hono } from "hono";
import type { ServerContext, ServerEnv } from "../server-context.js";

/** The server's version, reported by `/info`. */
export const SERVER_VERSION = "0.1.0";

/**
 * `/info`: what this server is and can do (the Agent Server's capability flags).
 *
 * @example
 * app.route("/", systemRoutes(ctx));
 */
export function systemRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.get("/info", (c) => {
    const info: ApiServerInfo = {
      version: SERVER_VERSION,
      name: "trellis-server",
      flags: { assistants: true, crons: true, langsmith: false, store: true, agui: true },
      assistants: [...ctx.graphs.keys()],
      queue: ctx.config.queue.kind,
      saver: ctx.config.saver.kind,
      auth: ctx.authEnabled,
    };
    return c.json(info);
  });
  return app;
}
