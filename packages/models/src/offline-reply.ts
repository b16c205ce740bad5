import { createHash } from "node:crypto";
import type { ChatRequest } from "./chat-model.js";
import { messageText } from "./content-parts.js";
import type { AssistantMessage, Message, TokenUsage, ToolCallInput } from "./messages.js";

/**
 * A reply of an offline model: text, tool calls or both. Ids left out are derived from the
 * conversation, so the same conversation always gets the same reply, ids included.
 *
 * @example
 * const reply: OfflineReply = { content: "Let me check.", toolCalls: [{ name: "get_guia", args: {} }] };
 */
export interface OfflineReply {
  content?: string;
  toolCalls?: readonly ToolCallInput[];
  usage?: TokenUsage;
  id?: string;
}

/**
 * What an offline model was asked: the normalised messages and the call options (without the signal).
 *
 * @example
 * expect(model.calls[0]?.tools?.map((t) => t.name)).toEqual(["search"]);
 */
export interface RecordedCall extends Omit<ChatRequest, "signal"> {
  messages: Message[];
}

/** @internal Records a call without its signal, with a copy of the messages. */
export function recordCall(messages: readonly Message[], request: ChatRequest): RecordedCall {
  const { signal: _signal, ...rest } = request;
  return { ...rest, messages: structuredClone([...messages]) };
}

/**
 * A short stable hash of a conversation (roles, contents, tool calls) and a salt.
 *
 * @example
 * conversationHash([userMessage("hi")], "rules"); // "5d41402abc4b" (12 hex digits)
 */
export function conversationHash(messages: readonly Message[], salt: string): string {
  const hash = createHash("sha256").update(salt);
  for (const m of messages) {
    hash.update(`\u0000${m.role}\u0000${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
    if (m.role === "assistant")
      for (const c of m.toolCalls ?? []) hash.update(`\u0001${c.name}${JSON.stringify(c.args)}`);
    if (m.role === "tool") hash.update(`\u0002${m.toolCallId}`);
  }
  return hash.digest("hex").slice(0, 12);
}

/**
 * A deterministic usage estimate: four characters a token.
 *
 * @example
 * estimateUsage([userMessage("12345678")], "1234"); // { inputTokens: 2, outputTokens: 1, totalTokens: 3 }
 */
export function estimateUsage(messages: readonly Message[], output: string): TokenUsage {
  const chars = messages.reduce((n, m) => n + messageText(m).length, 0);
  const inputTokens = Math.ceil(chars / 4);
  const outputTokens = Math.ceil(output.length / 4);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** @internal Turns an offline reply into an assistant message with derived ids and usage. */
export function offlineMessage(reply: OfflineReply, messages: readonly Message[], salt: string): AssistantMessage {
  const hash = conversationHash(messages, salt);
  const content = reply.content ?? "";
  const message: AssistantMessage = { id: reply.id ?? `msg_${hash}`, role: "assistant", content };
  const calls = reply.toolCalls ?? [];
  if (calls.length > 0) {
    message.toolCalls = calls.map((call, i) => ({
      id: call.id ?? `call_${hash}_${i}`,
      name: call.name,
      args: structuredClone(call.args ?? {}),
    }));
  }
  const toolText = calls.map((c) => c.name + JSON.stringify(c.args ?? {})).join("");
  message.usage = reply.usage ? { ...reply.usage } : estimateUsage(messages, content + toolText);
  return message;
}
