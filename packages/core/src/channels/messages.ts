import { randomUUID } from "node:crypto";
import type { Channel } from "./channel.js";

/**
 * The least a message must look like for the `messages` channel: plain data with an optional `id`.
 * `@trellis/models` defines the full OpenAI-shaped `Message`.
 *
 * @example
 * const note: MessageLike = { id: "m1", role: "user", content: "Summarise the thread" };
 */
export interface MessageLike {
  id?: string;
  role?: string;
  content?: unknown;
}

/** What `getSchemas()` shows for a `messages` key: a list of messages in any of the accepted shapes. */
const MESSAGES_JSON_SCHEMA = {
  type: "array",
  items: {
    type: "object",
    properties: {
      role: { type: "string" },
      type: { type: "string" },
      content: {},
      id: { type: "string" },
    },
  },
} as const satisfies Record<string, unknown>;

/**
 * Id that, in a {@link removeMessage} marker, removes every message.
 *
 * @example
 * return { messages: [removeMessage(REMOVE_ALL_MESSAGES), { role: "system", content: summary }] };
 */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/**
 * A marker that deletes the message with its id when written to a `messages` channel.
 *
 * @example
 * const marker: RemoveMessage = removeMessage("m1"); // { role: "remove", id: "m1" }
 */
export interface RemoveMessage {
  role: "remove";
  id: string;
}

/**
 * Makes a marker that removes a message by id (or all messages, with {@link REMOVE_ALL_MESSAGES}).
 *
 * @example
 * return { messages: [removeMessage(old.id)] };
 */
export function removeMessage(id: string): RemoveMessage {
  return { role: "remove", id };
}

const ROLE_ALIASES: Record<string, string> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  tool: "tool",
  remove: "remove",
};

/**
 * Brings a message in LangChain's shapes (`{type:"human"}`, `{role:"ai"}`, `tool_calls`,
 * `tool_call_id`, text content blocks) or a bare string to the OpenAI-shaped message Trellis stores
 * (`role`, `toolCalls`, `toolCallId`, text content). Unknown roles are kept as they are.
 *
 * @example
 * normalizeRole({ type: "human", content: [{ type: "text", text: "hi" }] }); // { role: "user", content: "hi" }
 */
export function normalizeRole<M extends MessageLike>(message: M | string): M {
  if (typeof message === "string") return { role: "user", content: message } as unknown as M;
  const type = (message as { type?: unknown }).type;
  const raw = message.role ?? (typeof type === "string" ? type : undefined);
  const role = raw === undefined ? undefined : (ROLE_ALIASES[raw] ?? raw);
  const wire = message as MessageLike & { tool_calls?: unknown; tool_call_id?: unknown };
  const text = textOfBlocks(message.content);
  const plain = text === undefined && wire.tool_calls === undefined && wire.tool_call_id === undefined;
  if (role === message.role && !("type" in message) && plain) return message;
  const {
    type: _type,
    tool_calls,
    tool_call_id,
    ...rest
  } = wire as MessageLike & {
    type?: unknown;
    tool_calls?: unknown;
    tool_call_id?: unknown;
  };
  // `role` first, then set: a literal adding a key after a spread is slow on V8
  const out: Record<string, unknown> = role === undefined ? rest : { role, ...rest };
  if (role !== undefined) out.role = role;
  if (text !== undefined) out.content = text;
  if (Array.isArray(tool_calls) && out.toolCalls === undefined) out.toolCalls = tool_calls.map(toolCallOf);
  if (typeof tool_call_id === "string" && out.toolCallId === undefined) out.toolCallId = tool_call_id;
  return out as M;
}

/**
 * The text of content given as LangChain/OpenAI content blocks that are all text
 * (`[{ type: "text", text }]`, what chat UIs send), joined; undefined for a string, or for content with
 * other blocks (images, files), which is kept as it is.
 */
function textOfBlocks(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined;
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (part && typeof part === "object" && (part as { type?: unknown }).type === "text") {
      const t = (part as { text?: unknown }).text;
      if (typeof t !== "string") return undefined;
      text += t;
    } else return undefined;
  }
  return text;
}

/** A tool call in LangChain's (`{ id, name, args }`) or OpenAI's (`{ id, function: { name, arguments } }`) shape. */
function toolCallOf(call: unknown): { id?: string; name?: string; args: unknown } {
  const c = call as { id?: string; name?: string; args?: unknown; function?: { name?: string; arguments?: unknown } };
  if (c?.function) {
    let args: unknown = c.function.arguments;
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        // kept as the text it is
      }
    }
    return toolCall(c.id, c.function.name, args);
  }
  return toolCall(c?.id, c?.name, c?.args ?? {});
}

/** `{ id?, name?, args }`, keys added in that order (not spread: see {@link withFreshId}). */
function toolCall(
  id: string | undefined,
  name: string | undefined,
  args: unknown,
): { id?: string; name?: string; args: unknown } {
  const out: { id?: string; name?: string; args: unknown } = {} as { args: unknown };
  if (id !== undefined) out.id = id;
  if (name !== undefined) out.name = name;
  out.args = args;
  return out;
}

/**
 * A list of messages that writes append to. A write whose message `id` is already present replaces
 * that message in place; a {@link removeMessage} marker deletes one, or all. Messages without an id get
 * one. Checkpoints store only appended messages.
 *
 * @example
 * const schema = { messages: channel.messages() };
 * // a node returns { messages: [{ role: "assistant", content: "Hello" }] }
 */
export function messages<M extends MessageLike = MessageLike>(): Channel<
  M[],
  M | RemoveMessage | string | ReadonlyArray<M | RemoveMessage | string>
> {
  return {
    kind: "messages",
    appendOnly: true,
    jsonSchema: MESSAGES_JSON_SCHEMA,
    initial: () => [],
    apply(current, updates) {
      const incoming: M[] = [];
      for (const update of updates) {
        if (Array.isArray(update)) for (const m of update) incoming.push(normalizeRole(m as M));
        else incoming.push(normalizeRole(update as M));
      }
      return mergeMessages(current, incoming);
    },
  };
}

/*
 * Where each message id sits, kept per list a merge made by appending only: the next merge into that
 * list starts from it instead of indexing the whole list again (which made a conversation of n steps
 * cost n² map inserts). Lists that extend one list share its map, so every answer is checked against the
 * list itself, and a list that a sibling's entry misleads is searched instead.
 */
const indexes = new WeakMap<readonly MessageLike[], Map<string, number>>();

function mergeMessages<M extends MessageLike>(current: M[], incoming: M[]): { value: M[]; appended: unknown[] | null } {
  let list = current;
  let copied = false;
  let index: Map<string, number> | undefined;
  const appended: M[] = [];
  let pureAppend = true;
  const own = () => {
    if (!copied) {
      list = list.slice();
      copied = true;
    }
  };
  const indexOf = (id: string): number | undefined => {
    if (!index) {
      index = list === current ? indexes.get(current) : undefined;
      if (!index) {
        index = new Map();
        for (let i = 0; i < list.length; i++) {
          const existing = list[i]?.id;
          if (existing !== undefined) index.set(existing, i);
        }
      }
    }
    const at = index.get(id);
    if (at === undefined || list[at]?.id === id) return at;
    const found = list.findIndex((m) => m.id === id); // the shared map was written by a sibling list
    return found === -1 ? undefined : found;
  };
  for (const message of incoming) {
    if (message.role === "remove") {
      pureAppend = false;
      list = message.id === REMOVE_ALL_MESSAGES ? [] : list.filter((m) => m.id !== message.id);
      copied = true;
      index = undefined;
      continue;
    }
    const withId = message.id === undefined ? withFreshId(message) : message;
    const at = message.id === undefined ? undefined : indexOf(message.id);
    own();
    if (at !== undefined) {
      pureAppend = false;
      list[at] = withId;
    } else {
      list.push(withId);
      index?.set(withId.id as string, list.length - 1);
      appended.push(withId);
    }
  }
  if (pureAppend && index) indexes.set(list, index);
  return { value: list, appended: pureAppend ? appended : null };
}

/** A copy of `message` with a new id (first, then set: a literal adding a key after a spread is slow on V8). */
function withFreshId<M extends { id?: string | undefined }>(message: M): M & { id: string } {
  const out = { id: "", ...message };
  out.id = randomUUID();
  return out as M & { id: string };
}
