import { type PausedInputPolicy, TrellisError } from "@trellis/core";
import { messageText } from "@trellis/models";

interface InputMessage {
  role?: unknown;
  type?: unknown;
  content?: unknown;
}

function isUserMessage(m: InputMessage): boolean {
  return m.role === "user" || m.type === "human" || m.type === "user";
}

/**
 * What an input that arrives while the reporting agent waits for a clarification answers: the text of
 * its last user message (plain text or text parts; Trellis, OpenAI or LangChain message shapes). It is
 * what `request_clarification` returns to the reporting agent. An input without a user message with
 * text answers nothing: a `THREAD_PAUSED` error (409) that says what the thread waits for.
 *
 * @example
 * clarificationAnswer({ messages: [{ role: "user", content: "hoofdstraat 2, ja, nee" }] }); // "hoofdstraat 2, ja, nee"
 */
export function clarificationAnswer(input: Record<string, unknown>): string {
  const messages = Array.isArray(input.messages) ? (input.messages as InputMessage[]) : [];
  const last = messages.filter((m) => typeof m === "object" && m !== null && isUserMessage(m)).at(-1);
  const text = messageText(last);
  if (!text.trim()) {
    throw new TrellisError(
      "THREAD_PAUSED",
      "The reporting agent waits for answers to its questions: send them as a user message with text.",
    );
  }
  return text;
}

/**
 * The inspection graph's paused-input policy (seed 004's sticky resume): a message that arrives while
 * the reporting agent waits in `request_clarification` is the answer to its questions, whichever door
 * it came through (the app's `/chat` and WebSocket, AG-UI, the Agent Server API), and whenever the
 * pause was reached (also when a run that was cut off by a crash reaches it after a restart).
 *
 * @example
 * builder.compile({ checkpointer, onInputWhilePaused: INSPECTION_PAUSED_INPUT_POLICY });
 */
export const INSPECTION_PAUSED_INPUT_POLICY: PausedInputPolicy = { resume: clarificationAnswer };
