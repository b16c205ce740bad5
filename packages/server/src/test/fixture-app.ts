/** An application module as the apps/* packages write them: an async graph factory and a route factory. */
import { Hono } from "hono";
import { WebSocketServer } from "ws";
import type { AppRoutesContext } from "../assistants/graph-registry.js";
import { askGraph } from "./fixture-graphs.js";

export async function makeGraph() {
  await Promise.resolve();
  return askGraph();
}

export function routes(ctx: AppRoutesContext) {
  const app = new Hono();
  app.get("/hello", (c) => c.json({ assistant: ctx.assistantId, graph: ctx.graph.name }));
  app.post("/webhook", (c) => {
    if (c.req.header("x-signature") === "good") {
      ctx.log?.({ level: "info", event: "webhook-received", route: "/webhook" });
      return c.json({ accepted: true });
    }
    ctx.log?.({ level: "warn", event: "webhook-refused", route: "/webhook", status: 403, reason: "bad-signature" });
    return c.json({ error: "bad signature" }, 403);
  });
  // mounted with routesAuth "app", only the webhook answers without the server's credentials
  ctx.declareAppAuthRoutes?.([{ method: "POST", path: "/webhook", check: "verified", detail: "x-signature" }]);
  // An app WebSocket: echoes each message with the authenticated user. It takes the server's body
  // limit, and listens for errors (ws closes the socket on a bad frame; an unheard 'error' would throw).
  const wss = new WebSocketServer({ noServer: true, maxPayload: ctx.maxPayload ?? 1024 * 1024 });
  ctx.onUpgrade?.((req, socket, head, user) => {
    if (!req.url?.startsWith(`/apps/${ctx.assistantId}/echo`)) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("error", () => undefined);
      ws.on("message", (raw) => ws.send(JSON.stringify({ user, echo: String(raw) })));
    });
  });
  return app;
}

/**
 * An app whose WebSocket upgrade handler fails: it throws at once for `/apps/<id>/now`, and returns a
 * promise that rejects for any other path. The server must survive both.
 */
export function crashyRoutes(ctx: AppRoutesContext) {
  const failLater = async () => {
    await new Promise((r) => setTimeout(r, 10));
    throw new Error("the app's upgrade handler failed later");
  };
  ctx.onUpgrade?.((req) => {
    if (req.url?.endsWith("/now")) throw new Error("the app's upgrade handler failed");
    return failLater() as unknown as undefined;
  });
  return new Hono();
}
