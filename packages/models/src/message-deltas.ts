import type { ChatDelta } from "./chat-model.js";
import type { AssistantMessage } from "./messages.js";

/**
 * Splits text into word chunks whose concatenation is the text: each chunk is a word with the
 * whitespace before it.
 *
 * @example
 * splitIntoWords("Hello there, friend"); // ["Hello", " there,", " friend"]
 */
export function splitIntoWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/**
 * The deltas a streaming model would have produced for `message`: its text in word chunks, each tool
 * call as one chunk with its whole arguments, then the message itself.
 *
 * @example
 * [...deltasFromMessage(assistantMessage("Hi there"))].map((d) => d.type); // ["text", "text", "message"]
 */
export function* deltasFromMessage(message: AssistantMessage): Generator<ChatDelta> {
  for (const text of splitIntoWords(message.content)) yield { type: "text", messageId: message.id, text };
  for (const [index, call] of (message.toolCalls ?? []).entries()) {
    yield {
      type: "tool-call",
      messageId: message.id,
      index,
      id: call.id,
      name: call.name,
      argsDelta: call.unparsedArgs ?? JSON.stringify(call.args),
    };
  }
  yield { type: "message", message };
}
