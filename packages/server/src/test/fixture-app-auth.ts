/**
 * Apps mounted with `routesAuth: "app"`, for the tests of declared routes: one declares its webhook and
 * a signed-download prefix, one declares nothing, one declares a route the server must refuse.
 */
import { Hono } from "hono";
import type { AppRoutesContext } from "../assistants/graph-registry.js";
import { askGraph } from "./fixture-graphs.js";

export const graph = askGraph;

/** A webhook checked by the app, signed downloads, and an admin page that is not declared. */
export function declaringRoutes(ctx: AppRoutesContext) {
  const app = new Hono();
  app.post("/hook", (c) =>
    c.req.header("x-signature") === "good" ? c.json({ accepted: true }) : c.json({ error: "bad signature" }, 403),
  );
  app.get("/files/*", (c) => (c.req.query("sig") === "ok" ? c.text("file") : c.json({ error: "bad link" }, 403)));
  app.get("/admin", (c) => c.json({ secret: "the app forgot to check its caller here" }));
  app.post("/files/upload", (c) => c.json({ uploaded: true }));
  ctx.declareAppAuthRoutes?.([
    { method: "POST", path: "/hook", check: "verified", detail: "x-signature" },
    { method: "GET", path: "/files/*", check: "verified", detail: "signed link" },
  ]);
  return app;
}

/** An app that declares nothing: all of it stays behind the server's auth (fail closed). */
export function silentRoutes() {
  const app = new Hono();
  app.post("/hook", (c) => c.json({ accepted: true }));
  return app;
}

/** A declaration the server refuses: a relative path. */
export function badRoutes(ctx: AppRoutesContext) {
  ctx.declareAppAuthRoutes?.([{ method: "POST", path: "hook", check: "verified", detail: "" }]);
  return new Hono();
}
