import { randomUUID } from "node:crypto";
import { executeAgentQuery } from "./agent/run-agent.js";
import type { MarketAssistant } from "./market-assistant.js";
import type { ChatMessage } from "./transcript/chat-message.js";

/** A chat request, in the wire format. */
export interface ChatRequest {
  thread_id: string;
  message: string;
}

/** Time and ids, injectable for tests. */
export interface ChatServiceOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Default `crypto.randomUUID`. */
  newId?: () => string;
}

/**
 * One turn of the seed's `/chat` flow: store the user message, run the agent through
 * `executeAgentQuery` (which loads the transcript), store the reply with metadata
 * `{ agent_type: "langgraph", model, processing_time }` and return it. A store that cannot be written
 * is logged and skipped — the user still gets an answer.
 *
 * @example
 * const reply = await chat(assistant, { thread_id: "t-1", message: "Tell me about John Keells" });
 * reply.metadata?.model; // "market-assistant-offline" or "gpt-4o-mini"
 */
export async function chat(
  assistant: MarketAssistant,
  request: ChatRequest,
  options: ChatServiceOptions = {},
): Promise<ChatMessage> {
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  const { store, logger } = assistant;
  const userMessage: ChatMessage = {
    id: newId(),
    thread_id: request.thread_id,
    role: "user",
    content: request.message,
    timestamp: new Date(now()).toISOString(),
  };
  await storeQuietly(assistant, userMessage);
  const started = now();
  const reply = await executeAgentQuery(request.thread_id, request.message, {
    graph: assistant.graph,
    store,
    currentMessageId: userMessage.id,
    maxIterations: assistant.config.maxIterations,
    limits: assistant.config.transcript,
    logger,
  });
  const finished = now();
  const agentMessage: ChatMessage = {
    id: newId(),
    thread_id: request.thread_id,
    role: "assistant",
    content: reply.content,
    timestamp: new Date(finished).toISOString(),
    metadata: {
      agent_type: "langgraph",
      model: assistant.model.model,
      processing_time: Math.round(finished - started) / 1000,
      outcome: reply.outcome,
      history: reply.history,
    },
  };
  await storeQuietly(assistant, agentMessage);
  return agentMessage;
}

async function storeQuietly(assistant: MarketAssistant, message: ChatMessage): Promise<void> {
  try {
    await assistant.store.append(message);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    assistant.logger.warn(
      `Could not store the ${message.role} message of thread ${message.thread_id} in ${assistant.store.kind} (${reason}).`,
    );
  }
}
