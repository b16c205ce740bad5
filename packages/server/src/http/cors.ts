import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { originAllowed } from "./auth.js";
import type { ServerEnv } from "./server-context.js";

/**
 * CORS for browser apps that call the API from another origin (agent-chat-ui, a `useStream` page): the
 * origins of the config's `allowedOrigins` — any origin when it is unset and auth is off (development,
 * as LangGraph's dev server), none but the server's own when auth is on and nothing is listed.
 * Preflights are answered before auth; the answer to the real request still needs credentials.
 *
 * @example
 * app.use("*", corsFor(resolved.allowedOrigins));
 */
export function corsFor(allowed: readonly string[] | null): MiddlewareHandler<ServerEnv> {
  return cors({
    origin: (origin, c) => (originAllowed(origin, c.req.header("host"), allowed) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: ["content-type", "authorization", "x-api-key", "last-event-id", "x-auth-scheme", "traceparent"],
    exposeHeaders: ["content-location", "location"],
    maxAge: 600,
  });
}
