import { TrellisError } from "@trellis/common";
import { type ContentPart, ContentPartError, type MessageContent, readContentPart } from "./content-parts.js";
import {
  type Message,
  newMessageId,
  newToolCallId,
  type Role,
  type TokenUsage,
  type ToolCall,
  type ToolMessage,
} from "./messages.js";

/**
 * Anything {@link normalizeMessage} accepts: a Trellis message, a string (a user message), a
 * `[role, content]` pair, a LangChain message (dict, serialised or instance) or an OpenAI wire message.
 *
 * @example
 * const inputs: MessageInput[] = ["hi", ["ai", "hello"], { type: "human", content: "bye" }];
 */
export type MessageInput = Message | string | readonly [string, unknown] | object;

/**
 * A message could not be understood. `details.index` is its position when a list was normalised and
 * `details.reason` says what was wrong.
 *
 * @example
 * try { normalizeMessages(body.messages); }
 * catch (e) { if (e instanceof InvalidMessageError) return badRequest(e.message); }
 */
export class InvalidMessageError extends TrellisError {
  constructor(reason: string, index: number | undefined, received: unknown) {
    const where = index === undefined ? "The message" : `Message ${index}`;
    super("INVALID_ARGUMENT", `${where} cannot be used: ${reason}.`, {
      details: { index, reason, received: preview(received) },
    });
  }
}

/**
 * Options of {@link normalizeMessage}.
 *
 * @example
 * normalizeMessage(raw, { index: 3, newId: () => "fixed" });
 */
export interface NormalizeOptions {
  /** Position in a list, for error messages. */
  index?: number;
  /** Id for messages that have none. Defaults to a random UUID. */
  newId?: () => string;
}

const ROLE_ALIASES: Record<string, Role> = {
  system: "system",
  developer: "system",
  user: "user",
  human: "user",
  assistant: "assistant",
  ai: "assistant",
  tool: "tool",
};

const LANGCHAIN_CLASSES: Record<string, Role> = {
  SystemMessage: "system",
  SystemMessageChunk: "system",
  HumanMessage: "user",
  HumanMessageChunk: "user",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
};

/**
 * Turns one message in any accepted shape ({@link MessageInput}) into a Trellis {@link Message}.
 * Fields Trellis does not model (`response_metadata`, `additional_kwargs` other than tool calls...) are
 * dropped. Throws {@link InvalidMessageError} for input it cannot use.
 *
 * @example
 * normalizeMessage({ type: "human", content: "Hola" }); // { id: "…", role: "user", content: "Hola" }
 * normalizeMessage({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\":1}" } }] });
 * // { id: "…", role: "assistant", content: "", toolCalls: [{ id: "c1", name: "f", args: { a: 1 } }] }
 */
export function normalizeMessage(input: MessageInput, options: NormalizeOptions = {}): Message {
  const { index } = options;
  const newId = options.newId ?? newMessageId;
  if (typeof input === "string") return { id: newId(), role: "user", content: input };
  if (Array.isArray(input)) {
    if (input.length !== 2 || typeof input[0] !== "string") {
      throw new InvalidMessageError("a message array must be a [role, content] pair", index, input);
    }
    return normalizeMessage({ role: input[0], content: input[1] }, options);
  }
  if (input === null || typeof input !== "object") {
    throw new InvalidMessageError(`expected an object or a string, got ${describeType(input)}`, index, input);
  }
  const { fields, role: classRole } = unwrapLangChain(input as Record<string, unknown>);
  const role = classRole ?? readRole(fields, index, input);
  const id = typeof fields.id === "string" && fields.id !== "" ? fields.id : newId();
  const parts = readContent(fields.content, role, index, input);
  // only a user message carries images and files; the text of the others is their text parts
  const content = typeof parts === "string" ? parts : textOfParts(parts);
  const name = typeof fields.name === "string" ? fields.name : undefined;

  switch (role) {
    case "user": {
      const message: Message = { id, role, content: typeof parts === "string" || !hasMedia(parts) ? content : parts };
      if (name !== undefined) message.name = name;
      return message;
    }
    case "system": {
      const message: Message = { id, role, content };
      if (name !== undefined) message.name = name;
      return message;
    }
    case "assistant": {
      const message: Message = { id, role, content };
      if (name !== undefined) message.name = name;
      const toolCalls = readToolCalls(fields, index, input);
      if (toolCalls.length > 0) message.toolCalls = toolCalls;
      const usage = readUsage(fields);
      if (usage) message.usage = usage;
      return message;
    }
    case "tool": {
      const toolCallId = fields.toolCallId ?? fields.tool_call_id;
      if (typeof toolCallId !== "string" || toolCallId === "") {
        throw new InvalidMessageError("a tool message needs `toolCallId` (or `tool_call_id`)", index, input);
      }
      const message: ToolMessage = { id, role, content, toolCallId };
      if (name !== undefined) message.name = name;
      if (fields.status === "error") message.status = "error";
      return message;
    }
  }
}

/**
 * Normalises a list of messages (or one message, or a string) with {@link normalizeMessage}. Errors
 * name the position of the offending message.
 *
 * @example
 * normalizeMessages([["system", "Be brief"], { role: "human", content: "Hi" }]).map((m) => m.role); // ["system", "user"]
 */
export function normalizeMessages(
  input: readonly MessageInput[] | MessageInput,
  options: Omit<NormalizeOptions, "index"> = {},
): Message[] {
  if (typeof input === "string" || !Array.isArray(input) || isRolePair(input)) {
    return [normalizeMessage(input as MessageInput, options)];
  }
  return (input as readonly MessageInput[]).map((message, index) => normalizeMessage(message, { ...options, index }));
}

function isRolePair(input: readonly unknown[]): boolean {
  return input.length === 2 && typeof input[0] === "string" && typeof input[1] === "string" && input[0] in ROLE_ALIASES;
}

/** LangChain's serialised form `{ lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs }` and class instances. */
function unwrapLangChain(input: Record<string, unknown>): { fields: Record<string, unknown>; role?: Role } {
  if (input.lc === 1 && input.type === "constructor" && Array.isArray(input.id)) {
    const className = input.id.at(-1);
    const kwargs = (input.kwargs ?? {}) as Record<string, unknown>;
    const role = typeof className === "string" ? LANGCHAIN_CLASSES[className] : undefined;
    return role ? { fields: kwargs, role } : { fields: kwargs };
  }
  const getType = (input as { _getType?: unknown; getType?: unknown }).getType ?? input._getType;
  if (typeof getType === "function" && input.role === undefined && input.type === undefined) {
    const type = (getType as () => unknown).call(input);
    const role = typeof type === "string" ? ROLE_ALIASES[type] : undefined;
    return role ? { fields: input, role } : { fields: input };
  }
  return { fields: input };
}

function readRole(fields: Record<string, unknown>, index: number | undefined, input: unknown): Role {
  const raw = fields.role ?? fields.type;
  if (typeof raw !== "string") {
    throw new InvalidMessageError("it has no `role` (or LangChain `type`)", index, input);
  }
  const role = ROLE_ALIASES[raw];
  if (!role) {
    throw new InvalidMessageError(
      `it has role "${raw}"; use system, user, assistant or tool (or LangChain's human, ai)`,
      index,
      input,
    );
  }
  return role;
}

/**
 * A message's content: a string stays a string; content blocks (text, image, file, in OpenAI's,
 * LangChain's and Anthropic's shapes) become Trellis {@link ContentPart}s — blocks that carry nothing for
 * a model (`tool_use`, `reasoning`) are left out.
 */
function readContent(content: unknown, role: Role, index: number | undefined, input: unknown): MessageContent {
  if (typeof content === "string") return content;
  if (content === undefined || content === null) {
    if (role === "assistant" || role === "tool") return "";
    throw new InvalidMessageError(`a ${role} message needs \`content\``, index, input);
  }
  if (Array.isArray(content)) {
    const parts: ContentPart[] = [];
    for (const raw of content) {
      try {
        const part = readContentPart(raw);
        if (part) parts.push(part);
      } catch (error) {
        if (!(error instanceof ContentPartError)) throw error;
        throw new InvalidMessageError(error.message, index, input);
      }
    }
    return parts;
  }
  throw new InvalidMessageError(
    `its content is ${describeType(content)}; expected a string or content parts (text, image, file)`,
    index,
    input,
  );
}

function textOfParts(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function hasMedia(parts: readonly ContentPart[]): boolean {
  return parts.some((p) => p.type !== "text");
}

function readToolCalls(fields: Record<string, unknown>, index: number | undefined, input: unknown): ToolCall[] {
  const kwargs = fields.additional_kwargs as { tool_calls?: unknown } | undefined;
  const raw = fields.toolCalls ?? fields.tool_calls ?? kwargs?.tool_calls;
  const calls: ToolCall[] = [];
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) throw new InvalidMessageError("its tool calls are not an array", index, input);
    for (const call of raw) calls.push(readToolCall(call, index, input));
  }
  // LangChain keeps calls whose arguments did not parse apart, in `invalid_tool_calls`.
  if (Array.isArray(fields.invalid_tool_calls)) {
    for (const call of fields.invalid_tool_calls) calls.push(readToolCall(call, index, input));
  }
  return calls;
}

function readToolCall(raw: unknown, index: number | undefined, input: unknown): ToolCall {
  if (raw === null || typeof raw !== "object") {
    throw new InvalidMessageError(`a tool call is ${describeType(raw)}, not an object`, index, input);
  }
  const call = raw as {
    id?: unknown;
    name?: unknown;
    args?: unknown;
    unparsedArgs?: unknown;
    function?: { name?: unknown; arguments?: unknown };
  };
  const name = call.function?.name ?? call.name;
  if (typeof name !== "string" || name === "") {
    throw new InvalidMessageError("a tool call has no `name` (or `function.name`)", index, input);
  }
  const id = typeof call.id === "string" && call.id !== "" ? call.id : newToolCallId();
  if (typeof call.unparsedArgs === "string") return { id, name, args: {}, unparsedArgs: call.unparsedArgs };
  const rawArgs = call.function ? call.function.arguments : call.args;
  return { id, name, ...parseToolArgs(rawArgs) };
}

/**
 * Reads tool-call arguments sent as an object or as JSON text. Anything that is not a JSON object
 * gives `args: {}` and keeps the text in `unparsedArgs`.
 *
 * @example
 * parseToolArgs('{"q":"x"}'); // { args: { q: "x" } }
 * parseToolArgs("{oops");     // { args: {}, unparsedArgs: "{oops" }
 */
export function parseToolArgs(raw: unknown): Pick<ToolCall, "args" | "unparsedArgs"> {
  if (raw === undefined || raw === null || raw === "") return { args: {} };
  if (isPlainObject(raw)) return { args: { ...raw } };
  const text = typeof raw === "string" ? raw : safeStringify(raw);
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isPlainObject(parsed)) return { args: parsed };
    } catch {
      // fall through: kept as unparsed text
    }
  }
  return { args: {}, unparsedArgs: text };
}

function readUsage(fields: Record<string, unknown>): TokenUsage | undefined {
  const ours = fields.usage as Partial<Record<string, unknown>> | undefined;
  if (ours && typeof ours.inputTokens === "number" && typeof ours.outputTokens === "number") {
    return usageOf(ours.inputTokens, ours.outputTokens, ours.totalTokens, ours);
  }
  if (ours && typeof ours.prompt_tokens === "number" && typeof ours.completion_tokens === "number") {
    return usageOf(ours.prompt_tokens, ours.completion_tokens, ours.total_tokens, {});
  }
  const lc = fields.usage_metadata as Partial<Record<string, unknown>> | undefined;
  if (lc && typeof lc.input_tokens === "number" && typeof lc.output_tokens === "number") {
    return usageOf(lc.input_tokens, lc.output_tokens, lc.total_tokens, {});
  }
  return undefined;
}

function usageOf(input: number, output: number, total: unknown, extra: Partial<Record<string, unknown>>): TokenUsage {
  const usage: TokenUsage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: typeof total === "number" ? total : input + output,
  };
  if (typeof extra.cachedInputTokens === "number") usage.cachedInputTokens = extra.cachedInputTokens;
  if (typeof extra.reasoningTokens === "number") usage.reasoningTokens = extra.reasoningTokens;
  return usage;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function preview(value: unknown): string {
  const text = typeof value === "string" ? value : safeStringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
