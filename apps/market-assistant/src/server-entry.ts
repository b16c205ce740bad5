import type { CompiledGraph } from "@trellis/core";
import type { AppRoutesContext } from "@trellis/server";
import type { agentStateSchema } from "./agent/agent-state.js";
import { createChatRoutes } from "./http/chat-routes.js";
import { createMarketAssistant, type MarketAssistant } from "./market-assistant.js";

let shared: Promise<MarketAssistant> | undefined;

/**
 * The process-wide assistant the Trellis server's exports use, configured from the environment and
 * created on first use (nothing is opened at import time).
 *
 * @example
 * const assistant = await defaultMarketAssistant();
 */
export function defaultMarketAssistant(): Promise<MarketAssistant> {
  shared ??= createMarketAssistant().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/**
 * The conversation graph, for the Trellis server's registry (`"graph": "buildGraph"`). Served runs take
 * `{ conversation_transcript, messages }` as the seed does, or just `{ messages }`: the transcript is
 * then built from the thread's messages.
 *
 * @example
 * // trellis.json
 * { "graphs": { "market-assistant": { "module": "./apps/market-assistant/src/index.ts", "graph": "buildGraph", "routes": "createRoutes" } } }
 */
export async function buildGraph(): Promise<CompiledGraph<typeof agentStateSchema>> {
  return (await defaultMarketAssistant()).graph;
}

/**
 * The app's Hono routes for the Trellis server's registry (`"routes": "createRoutes"`), mounted under
 * `/apps/market-assistant/`: `POST /chat`, `GET /threads/:id/messages`, `GET /health`. A `/chat` turn
 * is a run of the server's run service (`ctx.runs`) on the thread `thread_id`, so the conversation is a
 * server thread like one started over the Agent Server API. The transcript of a thread is deleted with
 * the thread (`ctx.onThreadDeleted`), whichever door deletes it.
 *
 * @example
 * const app = await createRoutes({ runs: server.runs, assistantId: "market-assistant" });
 * await app.request("/health");
 */
export async function createRoutes(
  ctx: Partial<Pick<AppRoutesContext, "runs" | "assistantId" | "onThreadDeleted">> = {},
): Promise<ReturnType<typeof createChatRoutes>> {
  const assistant = await defaultMarketAssistant();
  // a thread's transcript goes with the thread: a new thread with the same id starts with none
  ctx.onThreadDeleted?.(({ threadId }) => assistant.store.delete(threadId));
  return createChatRoutes(assistant, { runs: ctx.runs, assistantId: ctx.assistantId });
}
