import { timingSafeEqual } from "node:crypto";
import { TrellisError } from "@trellis/checkpoint";
import type { MiddlewareHandler } from "hono";
import type { Credential } from "../config/config.js";
import type { ServerEnv } from "./server-context.js";

/**
 * Resolves the caller of a request to a user id, or null when the request carries no credentials it
 * recognises. The default resolver checks the config's API keys (`x-api-key`) and bearer tokens.
 *
 * @example
 * const authenticate: Authenticate = async (req) => (await verifyJwt(req.headers.get("authorization")))?.sub ?? null;
 */
export type Authenticate = (request: Request) => Promise<string | null> | string | null;

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The resolver for a list of credentials: `x-api-key: <key>` or `Authorization: Bearer <token>`.
 *
 * @example
 * const authenticate = credentialAuth([{ user: "ana", apiKey: "k1" }]);
 */
export function credentialAuth(credentials: readonly Credential[]): Authenticate {
  return (request) => {
    const key = request.headers.get("x-api-key");
    const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]?.trim();
    for (const c of credentials) {
      if (key && c.apiKey && same(key, c.apiKey)) return c.user;
      if (bearer && c.token && same(bearer, c.token)) return c.user;
      if (bearer && c.apiKey && same(bearer, c.apiKey)) return c.user;
    }
    return null;
  };
}

/**
 * Middleware that sets `c.var.user`. With auth off every request is anonymous (`null`); with auth on
 * a request that no credential resolves is a 401, whatever route it asks for (deny by default).
 *
 * @example
 * app.use("*", authMiddleware(true, credentialAuth(config.auth.credentials)));
 */
export function authMiddleware(enabled: boolean, authenticate: Authenticate): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (!enabled) {
      c.set("user", null);
      return next();
    }
    const user = await authenticate(c.req.raw);
    if (!user) {
      throw new TrellisError(
        "UNAUTHORIZED",
        "Missing or unknown credentials: send x-api-key or Authorization: Bearer.",
      );
    }
    c.set("user", user);
    return next();
  };
}

/**
 * Whether a browser page from `origin` may open the server's WebSockets (a WebSocket upgrade carries
 * no CORS check, so without this any site a user visits could use the server as that user).
 * Allowed: no `Origin` header (non-browser clients), the server's own origin (the `Origin` host equals
 * the `Host` header), and the listed origins (`"*"` lists every origin). `allowed` null allows any.
 *
 * @example
 * originAllowed("https://evil.example", "api.example.com", []); // false
 * originAllowed(undefined, "api.example.com", []); // true: not a browser
 */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[] | null,
): boolean {
  if (origin === undefined || origin === "") return true;
  if (allowed === null || allowed.includes("*") || allowed.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, files) and garbage: only when listed as such
  }
  if (host !== undefined && url.host.toLowerCase() === host.toLowerCase()) return true;
  return allowed.includes(url.origin);
}
