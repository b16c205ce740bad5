import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve, sep } from "node:path";
import { Hono } from "hono";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

function safeDecode(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * Where the built studio is: `--studio-dir`, else `TRELLIS_STUDIO_DIR`, else `@trellis/studio`'s
 * `dist/` (built by `npm run build`). Undefined when no build exists.
 *
 * @example
 * findStudioDir(undefined, process.env); // ".../packages/studio/dist"
 */
export function findStudioDir(given: string | undefined, env: Record<string, string | undefined>): string | undefined {
  const explicit = given ?? env.TRELLIS_STUDIO_DIR;
  if (explicit) return existsSync(join(explicit, "index.html")) ? resolve(explicit) : undefined;
  try {
    const pkg = createRequire(import.meta.url).resolve("@trellis/studio/package.json");
    const dist = join(dirname(pkg), "dist");
    return existsSync(join(dist, "index.html")) ? dist : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A Hono app serving the studio's static files, mounted at `/studio`: hashed assets are cached for
 * good, any other path answers `index.html` (the single-page app routes itself). With no build, a page
 * that says how to build it.
 *
 * @example
 * await createServer(config, { publicRoutes: [{ path: "/studio", app: studioFiles(findStudioDir(undefined, process.env)) }] });
 */
export function studioFiles(dir: string | undefined): Hono {
  const app = new Hono();
  if (!dir) {
    const page =
      "<!doctype html><title>Trellis studio</title><h1>The studio is not built</h1>" +
      "<p>Run <code>npm run build</code> at the repository root (it builds <code>@trellis/studio</code>), then restart the server.</p>";
    app.get("*", (c) => c.html(page, 503));
    return app;
  }
  const root = resolve(dir);
  const send = async (file: string, cache: string) => {
    const body = await readFile(file);
    return new Response(body, {
      headers: { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": cache },
    });
  };
  app.get("*", async (c) => {
    const path = c.req.path.replace(/^\/studio/, "");
    if (path === "") return c.redirect("/studio/", 301);
    const decoded = safeDecode(path);
    // a malformed percent-escape is the client's error: a 400, not a 500 with a stack trace in the log
    if (decoded === undefined) {
      return c.json({ error: "INVALID_ARGUMENT", message: "The path has a malformed percent-escape." }, 400);
    }
    const file = resolve(root, `.${decoded}`);
    const inside = file === root || file.startsWith(root + sep);
    if (inside && path !== "/" && existsSync(file) && statSync(file).isFile()) {
      const immutable = path.startsWith("/assets/");
      return send(file, immutable ? "public, max-age=31536000, immutable" : "no-cache");
    }
    if (path.startsWith("/assets/")) return c.text("Not found", 404);
    return send(join(root, "index.html"), "no-cache");
  });
  return app;
}
