import type { CompiledGraph } from "@trellis/core";
import { hasToolCalls, type Message, messageText, userMessage } from "@trellis/models";
import type { Logger } from "../logger.js";
import type { ChatMessage, TranscriptStore } from "../transcript/chat-message.js";
import { buildTranscript, type TranscriptLimits } from "../transcript/transcript-format.js";
import { type AgentOutcome, type AgentState, type agentStateSchema, REFERENCE_MESSAGE } from "./agent-state.js";

/** What one run of the agent produced. */
export interface AgentReply {
  /** The final answer: the last assistant message without tool calls. */
  content: string;
  outcome: AgentOutcome;
  /** Model turns taken. */
  iterations: number;
  /** Tool calls made, in order. */
  toolCalls: { name: string; args: Record<string, unknown> }[];
  /** The run's messages (reference message, tool calls and results, answer). */
  messages: Message[];
}

/** Options of {@link runAgentWithTranscript}. */
export interface RunAgentOptions {
  /** The conversation graph (see `buildConversationGraph`). */
  graph: CompiledGraph<typeof agentStateSchema>;
  /** Most model turns. Default 10, as in the seed. */
  maxIterations?: number;
  signal?: AbortSignal;
  logger?: Logger;
}

/** The answer when a run ends without any assistant message to show. */
export const NO_RESPONSE = "I couldn't generate a response.";

/**
 * The seed's pure agent: no Redis, no HTTP. Runs the conversation graph on a transcript that already
 * ends with the latest user message, starting the message list with the reference message instead of
 * that user message, and returns the last assistant message without tool calls. A run that fails
 * (anything `main_agent` did not already turn into an apology) becomes an apology too, with
 * `outcome: "error"`.
 *
 * @example
 * const reply = await runAgentWithTranscript("Human: What is the market cap of Commercial Bank?", { graph });
 * reply.content; // "… Commercial Bank of Ceylon PLC … LKR 192,000 mn …"
 */
export async function runAgentWithTranscript(
  conversationTranscript: string,
  options: RunAgentOptions,
): Promise<AgentReply> {
  const maxIterations = options.maxIterations ?? 10;
  try {
    const result = await options.graph.invoke(
      {
        messages: [userMessage(REFERENCE_MESSAGE)],
        conversation_transcript: conversationTranscript,
        iteration_count: 0,
        max_iterations: maxIterations,
      },
      { recursionLimit: 2 * maxIterations + 5, ...(options.signal ? { signal: options.signal } : {}) },
    );
    return agentReply(result);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return failedReply(error instanceof Error ? error.message : String(error), options.logger);
  }
}

/**
 * What a run of the conversation graph produced, from its values: `messages` are the run's own (the
 * message that started it, tool calls and results, answer).
 *
 * @example
 * const reply = agentReply(await graph.invoke(input));
 */
export function agentReply(values: Pick<AgentState, "messages" | "outcome" | "iteration_count">): AgentReply {
  const final = [...values.messages].reverse().find((m) => m.role === "assistant" && !hasToolCalls(m));
  return {
    content: (final && messageText(final)) || NO_RESPONSE,
    outcome: values.outcome,
    iterations: values.iteration_count,
    toolCalls: values.messages.flatMap((m) =>
      m.role === "assistant" ? (m.toolCalls ?? []).map((c) => ({ name: c.name, args: c.args })) : [],
    ),
    messages: values.messages,
  };
}

/**
 * The reply of a run that failed (anything `main_agent` did not already turn into an apology): an
 * apology quoting the reason, `outcome: "error"`, logged.
 *
 * @example
 * failedReply("the database is down", logger).outcome; // "error"
 */
export function failedReply(reason: string, logger?: Logger): AgentReply {
  logger?.error(`The agent run failed: ${reason}`);
  return {
    content: `I'm sorry, something went wrong while answering: ${reason}`,
    outcome: "error",
    iterations: 0,
    toolCalls: [],
    messages: [],
  };
}

/** Options of {@link executeAgentQuery}. */
export interface ExecuteAgentQueryOptions extends RunAgentOptions {
  /** Where the thread's transcript lives; without one the agent answers without history. */
  store?: TranscriptStore | undefined;
  /**
   * Id of the user message the caller already stored for this turn: it is left out of the loaded
   * history, since the transcript ends with the new message anyway.
   */
  currentMessageId?: string;
  limits?: TranscriptLimits;
}

/** {@link AgentReply}, plus whether the history could be read. */
export interface AgentQueryReply extends AgentReply {
  history: "loaded" | "unavailable";
  /** Messages of history the transcript was built from. */
  historyMessages: number;
}

/**
 * The seed's Redis wrapper: loads the thread's messages from the transcript store, formats them as
 * `Human: …` / `Agent: …`, appends the new message (truncating the oldest turns past the limits) and
 * calls {@link runAgentWithTranscript}. When the store cannot be read (Redis unreachable) it logs the
 * error and answers without history. Storing the reply is the caller's job, as in the seed.
 *
 * @example
 * const reply = await executeAgentQuery("thread-1", "What companies do they own?", { graph, store });
 */
export async function executeAgentQuery(
  threadId: string,
  userMessageText: string,
  options: ExecuteAgentQueryOptions,
): Promise<AgentQueryReply> {
  let history: ChatMessage[] = [];
  let loaded: AgentQueryReply["history"] = "loaded";
  if (options.store) {
    try {
      history = (await options.store.list(threadId)).filter((m) => m.id !== options.currentMessageId);
    } catch (error) {
      loaded = "unavailable";
      const reason = error instanceof Error ? error.message : String(error);
      options.logger?.warn(
        `Could not load the transcript of thread ${threadId} from ${options.store.kind} (${reason}); answering without history.`,
      );
    }
  }
  const transcript = buildTranscript(history, userMessageText, options.limits);
  const reply = await runAgentWithTranscript(transcript, options);
  return { ...reply, history: loaded, historyMessages: history.length };
}
