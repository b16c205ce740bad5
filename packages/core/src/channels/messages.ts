import { randomUUID } from "node:crypto";
import type { Channel } from "./channel.js";

/**
 * The least a message must look like for the `messages` channel: plain data with an optional `id`.
 * `@trellis/models` defines the full OpenAI-shaped `Message`.
 */
export interface MessageLike {
  id?: string;
  role?: string;
  content?: unknown;
}

/** Id that, in a {@link removeMessage} marker, removes every message. */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/** A marker that deletes the message with its id when written to a `messages` channel. */
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
 * Brings a message in LangChain's shapes (`{type:"human"}`, `{role:"ai"}`) or a bare string to the
 * OpenAI-shaped roles Trellis stores. Unknown roles are kept as they are.
 *
 * @example
 * normalizeRole({ type: "human", content: "hi" }); // { role: "user", content: "hi" }
 */
export function normalizeRole<M extends MessageLike>(message: M | string): M {
  if (typeof message === "string") return { role: "user", content: message } as unknown as M;
  const type = (message as { type?: unknown }).type;
  const raw = message.role ?? (typeof type === "string" ? type : undefined);
  const role = raw === undefined ? undefined : (ROLE_ALIASES[raw] ?? raw);
  if (role === message.role && !("type" in message)) return message;
  const { type: _type, ...rest } = message as MessageLike & { type?: unknown };
  return (role === undefined ? rest : { ...rest, role }) as M;
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
      index = new Map();
      for (let i = 0; i < list.length; i++) {
        const existing = list[i]?.id;
        if (existing !== undefined) index.set(existing, i);
      }
    }
    return index.get(id);
  };
  for (const message of incoming) {
    if (message.role === "remove") {
      pureAppend = false;
      list = message.id === REMOVE_ALL_MESSAGES ? [] : list.filter((m) => m.id !== message.id);
      copied = true;
      index = undefined;
      continue;
    }
    const withId = message.id === undefined ? { ...message, id: randomUUID() } : message;
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
  return { value: list, appended: pureAppend ? appended : null };
}
