import { channel } from "@trellis/core";
import type { Message } from "@trellis/models";
import { z } from "zod";

/** How a run of the conversation graph ended. */
export type AgentOutcome = "answered" | "partial" | "llm_error" | "error";

/**
 * The keys a caller sets (a run's input over the Agent Server API, a state update), as zod schemas
 * declared on their channels: a wrong value is refused with `INVALID_STATE` naming the key before
 * anything is written (a 400), and `getSchemas()` shows them as JSON Schema.
 *
 * @example
 * typedInputSchema.shape.max_iterations.safeParse(0).success; // false
 */
export const typedInputSchema = z.object({
  conversation_transcript: z.string({ error: "must be the conversation as text" }),
  iteration_count: z
    .number({ error: "must be a whole number, 0 or more" })
    .int({ error: "must be a whole number, 0 or more" })
    .min(0, { error: "must be a whole number, 0 or more" }),
  max_iterations: z
    .number({ error: "must be a whole number, 1 or more" })
    .int({ error: "must be a whole number, 1 or more" })
    .min(1, { error: "must be a whole number, 1 or more" }),
  outcome: z.enum(["answered", "partial", "llm_error", "error"]),
});

const fields = typedInputSchema.shape;

/**
 * The seed's `AgentState`: `messages` holds the current execution only (the reference message, tool
 * calls and tool results); the conversation itself travels in `conversation_transcript`, which already
 * ends with the latest user message. `outcome` is Trellis's addition, so callers can tell a partial
 * answer or an apology from a normal one without parsing text.
 */
export const agentStateSchema = {
  messages: channel.messages<Message>(),
  conversation_transcript: channel.value("", { schema: fields.conversation_transcript }),
  iteration_count: channel.value(0, { schema: fields.iteration_count }),
  max_iterations: channel.value(10, { schema: fields.max_iterations }),
  outcome: channel.value<AgentOutcome>("answered", { schema: fields.outcome }),
};

/** The state of the conversation graph. */
export interface AgentState {
  messages: Message[];
  conversation_transcript: string;
  iteration_count: number;
  max_iterations: number;
  outcome: AgentOutcome;
}

/**
 * The message the agent's message list starts with instead of the user's latest message, which is
 * already the last line of the transcript (the seed's reference-message trick against duplication).
 */
export const REFERENCE_MESSAGE = "Please answer the last question asked in the conversation history above.";

const HISTORY_HEADER = "CONVERSATION HISTORY:\n";
const HISTORY_END = "\n\nPlease analyze the conversation above";

/**
 * The seed's system prompt, around the transcript.
 *
 * @example
 * systemPrompt("Human: Top 5 companies by market cap?");
 */
export function systemPrompt(transcript: string): string {
  return [
    "You are an intelligent assistant for the Colombo Stock Exchange.",
    "",
    `${HISTORY_HEADER}${transcript}`,
    "",
    "Please analyze the conversation above and answer the last question asked by the user.",
    "Use the query_graph_database tool when you need to retrieve information from the database.",
    "Provide a comprehensive response based on the full conversation context.",
    "Your response should directly address what the user is asking for.",
  ].join("\n");
}

/**
 * The transcript inside a {@link systemPrompt}, or `undefined` when the text is not one. The offline
 * model reads the conversation this way, as an LLM would.
 *
 * @example
 * transcriptFromPrompt(systemPrompt("Human: hi")); // "Human: hi"
 */
export function transcriptFromPrompt(prompt: string): string | undefined {
  const start = prompt.indexOf(HISTORY_HEADER);
  const end = prompt.lastIndexOf(HISTORY_END);
  if (start < 0 || end < start) return undefined;
  return prompt.slice(start + HISTORY_HEADER.length, end);
}
