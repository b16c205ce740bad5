import { TrellisError } from "@trellis/core";
import type { ServerEnv } from "@trellis/server";
import { httpStatusOf } from "@trellis/server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import * as z from "zod";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { InspectionOrchestrator } from "../orchestrator/orchestrator.js";
import { parseRunAgentInput, runAgUiTurn } from "./ag-ui-run.js";

// the message's length is the orchestrator's to check: one limit, and one message, for every door
const chatBody = z.object({ thread_id: z.string().min(1).max(200), message: z.string().min(1) });

async function jsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new TrellisError("INVALID_ARGUMENT", "The request body must be JSON.");
  }
}

/**
 * The app's HTTP routes, mounted by the Trellis server under `/apps/inspection-reporter/`. Every turn
 * is a run of the server's run service (through the orchestrator), so the threads they drive are the
 * threads of the Agent Server API (`GET /threads/{id}`, `/threads/search`), with the same owner checks:
 *
 * - `POST /ag-ui` — AG-UI over SSE: a `RunAgentInput` in, AG-UI events out. The reporting agent's
 *   questions arrive as an ordinary assistant text message; the answer is an ordinary user message.
 * - `POST /chat` — `{ thread_id, message }` → `{ thread_id, reply, status, current_agent, resumed }`.
 * - `GET /threads/:id` — the thread's messages, agent and pending clarification (404 when unknown).
 * - `GET /health` — `{ ok, mcp: { <server>: { state, pid, restarts, … } } }`; 503 while an MCP server is
 *   down (it is being restarted).
 *
 * The WebSocket binding of the same AG-UI exchange is `inspectionSocketHandler`.
 *
 * @example
 * const app = inspectionRoutes(new InspectionOrchestrator(ctx.runs));
 * await app.request("/chat", { method: "POST", body: JSON.stringify({ thread_id: "t1", message: "Hallo" }) });
 */
export function inspectionRoutes(
  orchestrator: InspectionOrchestrator,
  options: { mcp?: Pick<McpServers, "status" | "healthy"> } = {},
): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.onError((error, c) => {
    const code = error instanceof TrellisError ? error.code : "INTERNAL";
    const status = (error instanceof TrellisError ? httpStatusOf(error.code) : 500) as ContentfulStatusCode;
    return c.json({ error: code, message: error.message }, status);
  });

  // 503 while an MCP server is down (it is being restarted): the agents' tools would fail meanwhile
  app.get("/health", (c) => {
    if (!options.mcp) return c.json({ ok: true, app: "inspection-reporter" });
    const ok = options.mcp.healthy();
    return c.json({ ok, app: "inspection-reporter", mcp: options.mcp.status() }, ok ? 200 : 503);
  });

  app.post("/ag-ui", async (c) => {
    const user = c.var?.user ?? null;
    const input = parseRunAgentInput(await jsonBody(c.req.raw), user);
    return streamSSE(c, async (sse) => {
      let open = true;
      sse.onAbort(() => {
        open = false; // the run goes on: its result is in the thread when the client comes back
      });
      let chain = Promise.resolve();
      await runAgUiTurn(
        orchestrator,
        input,
        (event) => {
          if (!open) return;
          chain = chain
            .then(() => sse.writeSSE({ data: JSON.stringify(event) }))
            .catch(() => {
              open = false;
            });
        },
        { user, source: "app:ag-ui" },
      );
      await chain;
    });
  });

  app.post("/chat", async (c) => {
    const parsed = chatBody.safeParse(await jsonBody(c.req.raw));
    if (!parsed.success) throw new TrellisError("INVALID_ARGUMENT", "Send { thread_id, message } as JSON strings.");
    const user = c.var?.user ?? null;
    const turn = await orchestrator.processMessage(parsed.data.thread_id, parsed.data.message, {
      user,
      source: "app:chat",
    });
    return c.json({
      thread_id: parsed.data.thread_id,
      reply: turn.reply,
      status: turn.status,
      current_agent: turn.currentAgent,
      resumed: turn.resumed,
    });
  });

  app.get("/threads/:id", async (c) => {
    const view = await orchestrator.getThread(c.req.param("id"), c.var?.user ?? null);
    return c.json({
      thread_id: c.req.param("id"),
      current_agent: view.currentAgent,
      messages: view.messages,
      pending_clarification: view.clarification?.request ?? null,
    });
  });
  return app;
}
