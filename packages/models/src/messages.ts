import { randomBytes, randomUUID } from "node:crypto";
import type { MessageContent } from "./content-parts.js";

/**
 * The four roles of a Trellis message, as in OpenAI's chat format.
 *
 * @example
 * const role: Role = "assistant";
 */
export type Role = "system" | "user" | "assistant" | "tool";

/**
 * A tool call requested by the model. `args` is always an object; when the model sent arguments that
 * are not a JSON object, `args` is `{}` and `unparsedArgs` holds what it sent, so the tool runner can
 * answer with an error the model can act on.
 *
 * @example
 * const call: ToolCall = { id: "call_1", name: "get_weather", args: { city: "Paris" } };
 */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  unparsedArgs?: string;
}

/**
 * Tokens a model call used. Offline models report a deterministic estimate (4 characters a token).
 *
 * @example
 * const usage: TokenUsage = { inputTokens: 12, outputTokens: 5, totalTokens: 17 };
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

/**
 * Instructions for the model.
 *
 * @example
 * const m: SystemMessage = { id: "s1", role: "system", content: "Answer in Spanish." };
 */
export interface SystemMessage {
  id: string;
  role: "system";
  content: string;
  name?: string;
}

/**
 * What a person said: text, or parts — text, images and files, as chat UIs send them. Read its text
 * with `messageText(m)`.
 *
 * @example
 * const m: UserMessage = { id: "u1", role: "user", content: "Hola" };
 * const withImage: UserMessage = { id: "u2", role: "user", content: [{ type: "text", text: "Qué es esto?" }, { type: "image", url: "https://…/a.png" }] };
 */
export interface UserMessage {
  id: string;
  role: "user";
  content: MessageContent;
  name?: string;
}

/**
 * What a model said: text, tool calls or both, and the tokens it used. `name` may hold the agent's
 * name in multi-agent graphs.
 *
 * @example
 * const m: AssistantMessage = { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", args: { q: "x" } }] };
 */
export interface AssistantMessage {
  id: string;
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
  name?: string;
  usage?: TokenUsage;
}

/**
 * The result of one tool call, answering the call with id `toolCallId`. `name` is the tool's name;
 * `status: "error"` marks a result that reports a failure (bad arguments, a throwing tool).
 *
 * @example
 * const m: ToolMessage = { id: "t1", role: "tool", content: "18°C", toolCallId: "c1", name: "get_weather" };
 */
export interface ToolMessage {
  id: string;
  role: "tool";
  content: string;
  toolCallId: string;
  name?: string;
  status?: "error";
}

/**
 * A Trellis message: plain, JSON-serialisable data, OpenAI-shaped.
 *
 * @example
 * const history: Message[] = [systemMessage("Be brief."), userMessage("Hi")];
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * A tool call as written by hand: the id is generated when left out.
 *
 * @example
 * assistantMessage("", { toolCalls: [{ name: "search", args: { q: "trellis" } }] });
 */
export interface ToolCallInput {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

/**
 * Options shared by the message builders.
 *
 * @example
 * userMessage("Hi", { id: "u1", name: "ana" });
 */
export interface MessageOptions {
  /** Defaults to a random UUID. */
  id?: string;
  name?: string;
}

/**
 * A new random message id.
 *
 * @example
 * newMessageId(); // "7f0c…" (a UUID)
 */
export function newMessageId(): string {
  return randomUUID();
}

/**
 * A new random tool-call id in OpenAI's style.
 *
 * @example
 * newToolCallId(); // "call_3f9a…"
 */
export function newToolCallId(): string {
  return `call_${randomBytes(12).toString("hex")}`;
}

/**
 * Builds a system message.
 *
 * @example
 * systemMessage("You are a patient tutor.");
 */
export function systemMessage(content: string, options: MessageOptions = {}): SystemMessage {
  return withName({ id: options.id ?? newMessageId(), role: "system", content }, options.name);
}

/**
 * Builds a user message, of text or of parts (text, images, files).
 *
 * @example
 * userMessage("What is a derivative?");
 * userMessage([{ type: "text", text: "What does this say?" }, { type: "image", url: "https://…/label.png" }]);
 */
export function userMessage(content: MessageContent, options: MessageOptions = {}): UserMessage {
  return withName({ id: options.id ?? newMessageId(), role: "user", content }, options.name);
}

/**
 * Options of {@link assistantMessage}.
 *
 * @example
 * assistantMessage("Done.", { usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 } });
 */
export interface AssistantMessageOptions extends MessageOptions {
  toolCalls?: readonly ToolCallInput[];
  usage?: TokenUsage;
}

/**
 * Builds an assistant message; tool calls without an id get one.
 *
 * @example
 * assistantMessage("Let me look that up.", { toolCalls: [{ name: "search", args: { q: "derivative" } }] });
 */
export function assistantMessage(content: string, options: AssistantMessageOptions = {}): AssistantMessage {
  const message: AssistantMessage = withName(
    { id: options.id ?? newMessageId(), role: "assistant", content },
    options.name,
  );
  if (options.toolCalls && options.toolCalls.length > 0) {
    message.toolCalls = options.toolCalls.map((call) => ({
      id: call.id ?? newToolCallId(),
      name: call.name,
      args: { ...(call.args ?? {}) },
    }));
  }
  if (options.usage) message.usage = { ...options.usage };
  return message;
}

/**
 * Options of {@link toolMessage}.
 *
 * @example
 * toolMessage("18°C", { toolCallId: "call_1", name: "get_weather" });
 */
export interface ToolMessageOptions extends MessageOptions {
  toolCallId: string;
  status?: "error";
}

/**
 * Builds a tool message answering the call `toolCallId`.
 *
 * @example
 * toolMessage("18°C and sunny", { toolCallId: call.id, name: call.name });
 */
export function toolMessage(content: string, options: ToolMessageOptions): ToolMessage {
  const message: ToolMessage = withName(
    { id: options.id ?? newMessageId(), role: "tool", content, toolCallId: options.toolCallId },
    options.name,
  );
  if (options.status) message.status = options.status;
  return message;
}

/**
 * Narrows a message to an assistant message.
 *
 * @example
 * const last = messages.at(-1);
 * if (last && isAssistantMessage(last)) console.log(last.usage);
 */
export function isAssistantMessage(message: Message): message is AssistantMessage {
  return message.role === "assistant";
}

/**
 * Narrows a message to a tool message.
 *
 * @example
 * const results = messages.filter(isToolMessage);
 */
export function isToolMessage(message: Message): message is ToolMessage {
  return message.role === "tool";
}

/**
 * True when `message` is an assistant message that asks for at least one tool call — the test behind
 * a ReAct loop's "call tools or finish" edge.
 *
 * @example
 * const next = hasToolCalls(state.messages.at(-1)) ? "tools" : END;
 */
export function hasToolCalls(
  message: Message | undefined,
): message is AssistantMessage & { toolCalls: [ToolCall, ...ToolCall[]] } {
  return message?.role === "assistant" && (message.toolCalls?.length ?? 0) > 0;
}

function withName<M extends Message>(message: M, name: string | undefined): M {
  if (name !== undefined) message.name = name;
  return message;
}
