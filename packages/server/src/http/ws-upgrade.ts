import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { TrellisError } from "@trellis/checkpoint";
import type { AppUpgradeHandler } from "../assistants/graph-registry.js";
import { rateLimitedLogger, warningKey } from "../operations/log-rate-limit.js";
import { jsonLogger } from "../operations/worker-log.js";
import { streamLimitsFor } from "../streams/stream-limits.js";
import { type Authenticate, originAllowed } from "./auth.js";
import { writeRawError } from "./http-errors.js";
import { httpStatusOf } from "./http-status.js";
import type { ServerContext } from "./server-context.js";

/** Serves an accepted upgrade of `/ag-ui/{assistantId}/ws` (the user is authenticated already). */
export type AgUiUpgrade = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  user: string | null,
  assistantId: string,
) => void;

/** Where an upgrade goes. */
export type UpgradeRoute =
  | { kind: "ag-ui"; assistantId: string }
  | { kind: "app"; assistantId: string; handler: AppUpgradeHandler };

/** An upgrade request's target, parsed: the URL and its decoded path segments. */
export interface UpgradeTarget {
  url: URL;
  segments: string[];
}

const invalid = (message: string) => new TrellisError("INVALID_ARGUMENT", message);

/**
 * Parses an upgrade request's target: origin-form (`/path?query`) or absolute-form
 * (`http://host/path`), with every path segment percent-decoded. Anything else — authority-form,
 * `*`, bad percent-escapes, credentials in the URL — is an INVALID_ARGUMENT error; nothing throws
 * anything else.
 *
 * @example
 * parseUpgradeTarget("/ag-ui/chat/ws?api_key=k").segments; // ["ag-ui", "chat", "ws"]
 */
export function parseUpgradeTarget(raw: string | undefined): UpgradeTarget {
  const target = raw ?? "";
  let url: URL;
  try {
    if (target.startsWith("/") && !target.startsWith("//")) url = new URL(target, "http://localhost");
    else if (/^(https?|wss?):\/\//i.test(target)) url = new URL(target);
    else throw invalid(`The request target ${JSON.stringify(target.slice(0, 100))} is not a path.`);
  } catch (error) {
    if (error instanceof TrellisError) throw error;
    throw invalid(`The request target ${JSON.stringify(target.slice(0, 100))} is not a valid URL.`);
  }
  if (url.username || url.password) throw invalid("The request target may not carry credentials.");
  const segments = url.pathname
    .split("/")
    .slice(1)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw invalid(`The path ${JSON.stringify(url.pathname.slice(0, 100))} has a malformed percent-escape.`);
      }
    });
  return { url, segments };
}

/** The route of a parsed target, or a NOT_FOUND error. */
function routeOf(ctx: ServerContext, { segments }: UpgradeTarget): UpgradeRoute {
  const [first, id, ...rest] = segments;
  if (first === "ag-ui" && id !== undefined && rest.length === 1 && rest[0] === "ws") {
    if (!ctx.graphs.has(id)) throw new TrellisError("NOT_FOUND", `Assistant "${id}" not found.`);
    return { kind: "ag-ui", assistantId: id };
  }
  if (first === "apps" && id !== undefined && rest.length > 0) {
    const handler = ctx.graphs.get(id)?.upgrade;
    if (handler) return { kind: "app", assistantId: id, handler };
  }
  throw new TrellisError("NOT_FOUND", "No WebSocket is served at this path.");
}

/** A Fetch request of the upgrade's URL and headers, for the authenticator. */
function requestOf(req: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  // a value Fetch refuses (a decoded ?token=%FF is not a byte string) carries no credential: skip it
  const set = (name: string, value: string) => {
    try {
      headers.set(name, value);
    } catch {
      headers.delete(name);
    }
  };
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) set(k, Array.isArray(v) ? v.join(", ") : v);
  }
  // browsers cannot set headers on a WebSocket: credentials may come as ?api_key= or ?token=
  const key = url.searchParams.get("api_key");
  const token = url.searchParams.get("token");
  if (key) set("x-api-key", key);
  if (token) set("authorization", `Bearer ${token}`);
  return new Request(new URL(`${url.pathname}${url.search}`, "http://localhost"), { headers });
}

/**
 * Takes every WebSocket upgrade of `server` and admits it, all inside one guard: the target is parsed
 * (400 when malformed), the request must be a WebSocket upgrade (400), from an allowed `Origin` (403),
 * with credentials when auth is on (401), to a served path (404: `/ag-ui/{id}/ws`, or `/apps/{id}/…`
 * when the app registered an upgrade handler), within the user's stream limit (429). Then `agUi` or the
 * app's handler takes the socket; a handler that throws, or returns a promise that rejects, gets a 500
 * written (or the socket destroyed) and is logged — never an exception that escapes to the process.
 * The socket counts as one of the user's open streams until it closes. Returns the detach function.
 *
 * @example
 * const detach = attachUpgrades(server, ctx, authenticate, (req, socket, head, user, id) => serve(id));
 */
export function attachUpgrades(
  server: Server,
  ctx: ServerContext,
  authenticate: Authenticate,
  agUi: AgUiUpgrade,
): () => void {
  const limits = streamLimitsFor(ctx);
  // an app's handler that fails on every upgrade cannot flood the log: 10 lines a minute, then a count
  const log = rateLimitedLogger(jsonLogger({}), { key: warningKey });

  const admit = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (String(req.headers.upgrade ?? "").toLowerCase() !== "websocket") {
      throw invalid("Only WebSocket upgrades are served.");
    }
    const target = parseUpgradeTarget(req.url);
    if (!originAllowed(req.headers.origin, req.headers.host, ctx.config.allowedOrigins)) {
      throw new TrellisError(
        "FORBIDDEN",
        "WebSocket upgrades from this Origin are not allowed: list it in the server's allowedOrigins.",
      );
    }
    const user = ctx.authEnabled ? await authenticate(requestOf(req, target.url)) : null;
    if (ctx.authEnabled && !user) {
      throw new TrellisError(
        "UNAUTHORIZED",
        "Missing or unknown credentials: send x-api-key or Authorization: Bearer (browsers: ?api_key= or ?token=).",
      );
    }
    const route = routeOf(ctx, target);
    if (socket.destroyed) return;
    const release = limits.acquire(user);
    socket.once("close", release);
    if (route.kind === "ag-ui") return agUi(req, socket, head, user, route.assistantId);
    const result: unknown = route.handler(req, socket, head, user);
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") await result;
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until a WebSocket takes the socket, nobody listens for its errors: a reset now must not become
    // an uncaught 'error' event.
    socket.on("error", () => socket.destroy());
    admit(req, socket, head).catch((error: unknown) => {
      if (error instanceof TrellisError && httpStatusOf(error.code) < 500) {
        writeRawError(socket, httpStatusOf(error.code), error.code, error.message);
        return;
      }
      log({ level: "error", event: "upgrade-failed", url: req.url?.slice(0, 200), error });
      writeRawError(socket, 500, "INTERNAL", "The server failed while handling this upgrade; see its log.");
    });
  };
  server.on("upgrade", onUpgrade);
  return () => {
    server.off("upgrade", onUpgrade);
  };
}
