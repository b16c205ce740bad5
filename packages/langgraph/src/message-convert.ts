import {
  AIMessage,
  type BaseMessage,
  ChatMessage,
  coerceMessageLikeToMessage,
  HumanMessage,
  isBaseMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { ObjectLink } from "./object-link.js";

/**
 * A message as the compat layer stores it: Trellis's plain, OpenAI-shaped message (`id`, `role`,
 * `content`, `toolCalls`, `toolCallId`, `name`) plus LangChain's extra fields under their own names, so
 * that content blocks, `additional_kwargs`, `response_metadata`, `usage_metadata`, a tool message's
 * `status`/`artifact` survive a round trip.
 *
 * @example
 * const stored: StoredMessage = { id: "m1", role: "assistant", content: [{ type: "text", text: "Hi" }] };
 */
export interface StoredMessage {
  id: string;
  role: string;
  content: unknown;
  name?: string;
  toolCalls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
  [extra: string]: unknown;
}

const EXTRA_FIELDS = [
  "additional_kwargs",
  "response_metadata",
  "usage_metadata",
  "invalid_tool_calls",
  "status",
  "artifact",
] as const;

const ROLE_OF_TYPE: Record<string, string> = {
  human: "user",
  ai: "assistant",
  system: "system",
  tool: "tool",
  remove: "remove",
  generic: "chat",
  developer: "system",
};

/** LangChain instance → the stored plain message, linked both ways so a message keeps its identity. */
const plainOf = new ObjectLink<StoredMessage | { role: "remove"; id: string }>();
const classOf = new ObjectLink<BaseMessage>();

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value !== "object") return false;
  // six fields of every message converted: look for one own key without listing them all
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * The stored plain form of a LangChain message (an instance, its serialized `{ lc: 1, … }` form, a
 * `[role, text]` tuple, a string, `{ type | role, content }`), or a plain Trellis message as it is.
 *
 * @example
 * toStoredMessage(new HumanMessage({ id: "h1", content: "hi" })); // { id: "h1", role: "user", content: "hi" }
 */
export function toStoredMessage(message: unknown): StoredMessage | { role: "remove"; id: string } {
  if (message !== null && typeof message === "object") {
    const cached = plainOf.get(message);
    if (cached) return cached;
    if (isBaseMessage(message)) return fromInstance(message);
    const m = message as Record<string, unknown>;
    if (m.lc === 1 && m.type === "constructor" && Array.isArray(m.id)) return fromInstance(revive(m));
    if (typeof m.role === "string" && !("type" in m) && isTrellisRole(m.role)) return m as unknown as StoredMessage;
  }
  return fromInstance(coerceMessageLikeToMessage(message as Parameters<typeof coerceMessageLikeToMessage>[0]));
}

function isTrellisRole(role: string): boolean {
  return role === "user" || role === "assistant" || role === "system" || role === "tool" || role === "remove";
}

function revive(serialized: Record<string, unknown>): BaseMessage {
  const name = String((serialized.id as unknown[]).at(-1));
  const kwargs = (serialized.kwargs ?? {}) as Record<string, unknown>;
  const type = name.replace(/(Chunk)?$/, "").replace(/Message$/, "");
  const byName: Record<string, string> = { Human: "human", AI: "ai", System: "system", Tool: "tool", Chat: "generic" };
  return coerceMessageLikeToMessage(Object.assign({}, kwargs, { type: byName[type] ?? "human" }) as never);
}

function fromInstance(message: BaseMessage): StoredMessage | { role: "remove"; id: string } {
  const type = message.getType();
  if (type === "remove") {
    const marker = { role: "remove" as const, id: String(message.id) };
    plainOf.set(message, marker);
    return marker;
  }
  const role = ROLE_OF_TYPE[type] ?? type;
  if (message.id === undefined) giveId(message, crypto.randomUUID());
  const out: StoredMessage = { id: message.id as string, role, content: message.content };
  if (message.name !== undefined) out.name = message.name;
  if (role === "chat") out.chatRole = (message as ChatMessage).role;
  const ai = message as AIMessage;
  if (type === "ai" && ai.tool_calls && ai.tool_calls.length > 0) {
    out.toolCalls = ai.tool_calls.map((c) =>
      c.id !== undefined ? { id: c.id, name: c.name, args: c.args } : { name: c.name, args: c.args },
    );
  }
  if (type === "tool") out.toolCallId = (message as ToolMessage).tool_call_id;
  const record = message as unknown as Record<string, unknown>;
  for (const field of EXTRA_FIELDS) {
    const value = record[field];
    if (!isEmpty(value)) out[field] = value;
  }
  plainOf.set(message, out);
  // read back as the same instance, as LangGraph's state holds the instance a node returned
  classOf.set(out, message);
  return out;
}

/**
 * Gives a message written without an id the id it is stored under, on the instance itself (as
 * LangGraph's messages reducer does), so the node that reads it next gets the same instance with every
 * field its writer set.
 */
function giveId(message: BaseMessage, id: string): void {
  message.id = id;
  const kwargs = (message as { lc_kwargs?: Record<string, unknown> }).lc_kwargs;
  if (kwargs !== undefined && typeof kwargs === "object") kwargs.id = id;
}

/**
 * The LangChain message class for a stored message (or a LangChain-shaped plain one), the same
 * instance every time for the same stored object.
 *
 * @example
 * toLangChainMessage({ id: "a1", role: "assistant", content: "Hello" }); // AIMessage { id: "a1", content: "Hello" }
 */
export function toLangChainMessage(message: unknown): BaseMessage {
  if (isBaseMessage(message)) return message;
  if (message === null || typeof message !== "object") return coerceMessageLikeToMessage(message as string);
  const cached = classOf.get(message);
  if (cached) return cached;
  const m = message as StoredMessage;
  if (typeof m.role !== "string" || !isTrellisRole(m.role)) {
    if (m.role === "chat")
      return remember(m, new ChatMessage(Object.assign(fields(m), { role: String(m.chatRole ?? "user") }) as never));
    return coerceMessageLikeToMessage(message as never);
  }
  return remember(m, build(m));
}

function fields(m: StoredMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { id: m.id, content: m.content ?? "" };
  if (m.name !== undefined) out.name = m.name;
  for (const field of EXTRA_FIELDS) if (m[field] !== undefined) out[field] = m[field];
  return out;
}

function build(m: StoredMessage): BaseMessage {
  const f = fields(m);
  switch (m.role) {
    case "user":
      return new HumanMessage(f as never);
    case "system":
      return new SystemMessage(f as never);
    case "tool":
      return new ToolMessage(Object.assign(f, { tool_call_id: m.toolCallId ?? "" }) as never);
    case "remove":
      return new RemoveMessage({ id: m.id });
    default: {
      const calls = (m.toolCalls ?? []).map((c) => Object.assign({}, c, { type: "tool_call" as const }));
      return new AIMessage(Object.assign(f, { tool_calls: calls }) as never);
    }
  }
}

function remember(m: object, instance: BaseMessage): BaseMessage {
  classOf.set(m, instance);
  plainOf.set(instance, m as StoredMessage);
  return instance;
}

/** True for a LangChain message instance or its serialized form. @internal */
export function isLangChainMessage(value: unknown): boolean {
  if (isBaseMessage(value)) return true;
  const v = value as { lc?: unknown; type?: unknown; id?: unknown } | null;
  return (
    v !== null &&
    typeof v === "object" &&
    v.lc === 1 &&
    v.type === "constructor" &&
    Array.isArray(v.id) &&
    String(v.id.at(-1)).endsWith("Message")
  );
}

/** True for a stored plain message (what {@link toStoredMessage} makes). @internal */
export function isStoredMessage(value: unknown): value is StoredMessage {
  const v = value as { role?: unknown; id?: unknown } | null;
  return (
    v !== null &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    typeof v.id === "string" &&
    typeof v.role === "string" &&
    "content" in v &&
    (isTrellisRole(v.role) || v.role === "chat")
  );
}

/**
 * Whether a list holds messages, judged by its first and last items: a reducer folds every write of a
 * step, so scanning whole lists made a fan-out of n writes cost n² checks. Lists of messages hold
 * messages at both ends; a list with messages only in its middle keeps them as they are.
 */
function endsHold(list: readonly unknown[], test: (v: unknown) => boolean): boolean {
  return list.length > 0 && (test(list[0]) || test(list[list.length - 1]));
}

/**
 * A value with every LangChain message in it (itself, or the items of a list) in stored form, for a
 * key that is not a messages key. Other values pass unchanged.
 *
 * @example
 * toStoredValue([new AIMessage("a")]); // [{ id: "…", role: "assistant", content: "a" }]
 */
export function toStoredValue(value: unknown): unknown {
  if (isLangChainMessage(value)) return toStoredMessage(value);
  if (Array.isArray(value) && endsHold(value, isLangChainMessage)) {
    return value.map((v) => (isLangChainMessage(v) ? toStoredMessage(v) : v));
  }
  return value;
}

/**
 * The inverse of {@link toStoredValue}: stored messages (itself, or the items of a list) as LangChain
 * classes.
 *
 * @example
 * fromStoredValue({ id: "a", role: "assistant", content: "x" }); // AIMessage
 */
export function fromStoredValue(value: unknown): unknown {
  if (isStoredMessage(value)) return toLangChainMessage(value);
  if (Array.isArray(value) && endsHold(value, isStoredMessage)) {
    return value.map((v) => (isStoredMessage(v) ? toLangChainMessage(v) : v));
  }
  return value;
}
