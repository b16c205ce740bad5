/**
 * A graph that reports who it runs for (`ctx.user`, LangGraph's `configurable` keys, in a node and in a
 * subgraph node), and an app that keeps a note per thread outside the server's stores: it registers the
 * note with `ctx.onThreadDeleted` and serves it only to a caller who may use the thread.
 */
import { channel, END, START, StateGraph } from "@trellis/core";
import { Hono } from "hono";
import type { AppRoutesContext } from "../assistants/graph-registry.js";
import type { ServerEnv } from "../http/server-context.js";

const schema = {
  who: channel.value<unknown>(null),
  subWho: channel.value<unknown>(null),
  authUser: channel.value<unknown>(null),
  authUserId: channel.value<unknown>(null),
  configUserId: channel.value<unknown>(null),
  user_id: channel.value<unknown>(null),
  messages: channel.messages(),
};

/** A `configurable` value, or "absent" when the key is not there. */
function read(configurable: Record<string, unknown> | undefined, key: string): unknown {
  return configurable && Object.hasOwn(configurable, key) ? configurable[key] : "absent";
}

/** `read` (ctx.user and the configurable keys) → `sub` (a subgraph reading ctx.user). */
export function whoamiGraph() {
  const sub = new StateGraph({ subWho: channel.value<unknown>(null) })
    .addNode("inner", (_s, ctx) => ({ subWho: ctx.user }))
    .addEdge(START, "inner")
    .compile();
  return new StateGraph(schema, { name: "whoami" })
    .addNode("read", (_s, ctx) => ({
      who: ctx.user,
      authUser: read(ctx.config.configurable, "langgraph_auth_user"),
      authUserId: read(ctx.config.configurable, "langgraph_auth_user_id"),
      configUserId: read(ctx.config.configurable, "user_id"),
      messages: [{ role: "assistant" as const, content: `you are ${ctx.user?.id ?? "nobody"}` }],
    }))
    .addNode("sub", sub)
    .addEdge(START, "read")
    .addEdge("read", "sub")
    .addEdge("sub", END)
    .compile();
}

/**
 * `PUT /notes/:thread` `{ text }` and `GET /notes/:thread`: a note per thread, for a caller who may use
 * the thread (404 otherwise); deleted with the thread.
 */
export function notesRoutes(ctx: AppRoutesContext) {
  const notes = new Map<string, string>();
  ctx.onThreadDeleted?.(({ threadId }) => {
    notes.delete(threadId);
  });
  const app = new Hono<ServerEnv>();
  app.put("/notes/:thread", async (c) => {
    const thread = await ctx.runs?.thread(c.req.param("thread"), { user: c.var.user });
    const { text } = (await c.req.json()) as { text: string };
    notes.set(thread?.threadId ?? c.req.param("thread"), text);
    return c.json({ ok: true });
  });
  app.get("/notes/:thread", async (c) => {
    const thread = await ctx.runs?.thread(c.req.param("thread"), { user: c.var.user });
    return c.json({ text: notes.get(thread?.threadId ?? c.req.param("thread")) ?? null });
  });
  return app;
}
