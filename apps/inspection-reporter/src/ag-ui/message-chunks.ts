import type { ChatDelta } from "@trellis/models";

/**
 * A `messages`-mode chunk of a Trellis run (a `ChatDelta` from `@trellis/models`) in the LangGraph
 * `messages-tuple` shape that `AgUiTranslator` from `@trellis/server` reads: text and tool-call pieces
 * become `AIMessageChunk`s, the finished message an `ai` message.
 *
 * The server converts its stored events the same way, but that function (`sseData` in
 * `stream-format.ts`) is internal; this is the part the app needs to feed the translator directly.
 *
 * @example
 * toTranslatorChunk({ type: "text", messageId: "m1", text: "Hal" }); // { type: "AIMessageChunk", id: "m1", content: "Hal" }
 */
export function toTranslatorChunk(chunk: unknown): unknown {
  const delta = chunk as Partial<ChatDelta> | undefined;
  if (delta?.type === "text") {
    const text = delta as Extract<ChatDelta, { type: "text" }>;
    return { type: "AIMessageChunk", id: text.messageId, content: text.text };
  }
  if (delta?.type === "tool-call") {
    const call = delta as Extract<ChatDelta, { type: "tool-call" }>;
    return {
      type: "AIMessageChunk",
      id: call.messageId,
      content: "",
      tool_call_chunks: [{ id: call.id, name: call.name, args: call.argsDelta, index: call.index }],
    };
  }
  if (delta?.type === "message") {
    const whole = delta as Extract<ChatDelta, { type: "message" }>;
    return { type: "ai", ...whole.message };
  }
  return chunk;
}
