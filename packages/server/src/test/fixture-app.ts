/** An application module as the apps/* packages write them: an async graph factory and a route factory. */
import { Hono } from "hono";
import { WebSocketServer } from "ws";
import type { AppRoutesContext } from "../graph-registry.js";
import { askGraph } from "./fixture-graphs.js";

export async function makeGraph() {
  await Promise.resolve();
  return askGraph();
}

export function routes(ctx: AppRoutesContext) {
  const app = new Hono();
  app.get("/hello", (c) => c.json({ assistant: ctx.assistantId, graph: ctx.graph.name }));
  app.post("/webhook", (c) =>
    c.req.header("x-signature") === "good" ? c.json({ accepted: true }) : c.json({ error: "bad signature" }, 403),
  );
  // An app WebSocket: echoes each message with the authenticated user.
  const wss = new WebSocketServer({ noServer: true });
  ctx.onUpgrade?.((req, socket, head, user) => {
    if (!req.url?.startsWith(`/apps/${ctx.assistantId}/echo`)) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("message", (raw) => ws.send(JSON.stringify({ user, echo: String(raw) })));
    });
  });
  return app;
}
