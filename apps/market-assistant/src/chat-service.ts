import { randomUUID } from "node:crypto";
import { hasToolCalls, userMessage } from "@trellis/models";
import type { RunService } from "@trellis/server";
import type { AgentState } from "./agent/agent-state.js";
import { type AgentQueryReply, agentReply, executeAgentQuery, failedReply } from "./agent/run-agent.js";
import type { MarketAssistant } from "./market-assistant.js";
import type { ChatMessage } from "./transcript/chat-message.js";

/** A chat request, in the wire format. */
export interface ChatRequest {
  thread_id: string;
  message: string;
}

/** Time and ids, injectable for tests; and, when the Trellis server serves the app, its run service. */
export interface ChatServiceOptions {
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Default `crypto.randomUUID`. */
  newId?: () => string;
  /** Set by the app's routes when the Trellis server mounts them: the turn is a run of its run service. */
  served?: ServedTurns;
}

/**
 * The Trellis server's run service, as the app's routes hand it to {@link chat}: which assistant the
 * conversation graph is, and which user asks (null when the server's auth is off).
 *
 * @example
 * const served: ServedTurns = { runs: ctx.runs, assistantId: ctx.assistantId, user: c.get("user") };
 */
export interface ServedTurns {
  runs: RunService;
  assistantId: string;
  user: string | null;
}

/**
 * One turn of the seed's `/chat` flow: store the user message, run the agent through
 * `executeAgentQuery` (which loads the transcript), store the reply with metadata
 * `{ agent_type: "langgraph", model, processing_time }` and return it. A store that cannot be written
 * is logged and skipped — the user still gets an answer.
 *
 * Served by the Trellis server (`served`), the turn is a run of the server's run service on the thread
 * `thread_id`, like a run of the Agent Server API: the thread has a record (`GET /threads/{id}`,
 * `/threads/search`, the studio) and an owner, and its messages hold every turn whatever door it came
 * through, so the agent reads the conversation from the thread. The transcript store still records the
 * `/chat` turns (`GET /threads/:id/messages`). A run the server refuses (another user's thread, a thread
 * busy with a run, a thread of another graph) throws before anything is stored.
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
  const question: ChatMessage = {
    id: newId(),
    thread_id: request.thread_id,
    role: "user",
    content: request.message,
    timestamp: new Date(now()).toISOString(),
  };
  const started = now();
  const reply = options.served
    ? await servedTurn(assistant, question, options.served)
    : await localTurn(assistant, question);
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

/** The seed's turn: store the message, load the transcript from the store, run the graph here. */
async function localTurn(assistant: MarketAssistant, message: ChatMessage): Promise<AgentQueryReply> {
  await storeQuietly(assistant, message);
  return executeAgentQuery(message.thread_id, message.content, {
    graph: assistant.graph,
    store: assistant.store,
    currentMessageId: message.id,
    maxIterations: assistant.config.maxIterations,
    limits: assistant.config.transcript,
    logger: assistant.logger,
  });
}

/** The turn as a run of the server's run service on the conversation's thread. */
async function servedTurn(
  assistant: MarketAssistant,
  message: ChatMessage,
  served: ServedTurns,
): Promise<AgentQueryReply> {
  const maxIterations = assistant.config.maxIterations;
  const run = await served.runs.start({
    assistantId: served.assistantId,
    threadId: message.thread_id,
    as: { user: served.user },
    input: {
      // the user's message keeps its transcript-store id; the graph builds the transcript from the thread
      messages: [userMessage(message.content, { id: message.id })],
      conversation_transcript: "",
      iteration_count: 0,
      max_iterations: maxIterations,
    },
    ifNotExists: "create",
    kwargs: { config: { recursion_limit: 2 * maxIterations + 5 } },
  });
  await storeQuietly(assistant, message);
  const end = await served.runs.wait(run.runId);
  if (end.error) return { ...failedReply(end.error.message, assistant.logger), history: "loaded", historyMessages: 0 };
  const values = end.values as unknown as AgentState;
  const at = Math.max(
    values.messages.findLastIndex((m) => m.id === message.id),
    0,
  );
  const earlier = values.messages
    .slice(0, at)
    .filter((m) => m.role === "user" || (m.role === "assistant" && !hasToolCalls(m)));
  const reply = agentReply({ ...values, messages: values.messages.slice(at) });
  return { ...reply, history: "loaded", historyMessages: earlier.length };
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
