import type { BaseMessage, BaseMessageLike } from "@langchain/core/messages";
import { InvalidUpdateError } from "./errors.js";
import { type StoredMessage, toLangChainMessage, toStoredMessage } from "./message-convert.js";
import { ObjectLink } from "./object-link.js";

/**
 * The id that, in a `RemoveMessage`, removes every message before it (the same string as
 * LangGraph.js's and Trellis's).
 *
 * @example
 * return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new SystemMessage(summary)] };
 */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/**
 * What a messages key accepts as an update: one message or a list, as classes or LangChain's
 * message-like shapes.
 *
 * @example
 * const update: Messages = [new HumanMessage("hi"), ["ai", "hello"]];
 */
export type Messages = Array<BaseMessage | BaseMessageLike> | BaseMessage | BaseMessageLike;

type Stored = StoredMessage | { role: "remove"; id: string };

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/**
 * Merges stored messages as `messagesStateReducer` does: a message whose id is present replaces it in
 * place, a remove marker deletes one (or all, before it), others are appended with an id.
 * `appended` lists the new items when nothing was replaced or removed. @internal
 */
export function mergeStored(
  current: readonly StoredMessage[],
  update: unknown,
): { value: StoredMessage[]; appended: StoredMessage[] | null } {
  const incoming = listOf(update).map((m) => toStoredMessage(m) as Stored);
  let start = 0;
  for (let i = incoming.length - 1; i >= 0; i--) {
    const m = incoming[i] as Stored;
    if (m.role === "remove" && m.id === REMOVE_ALL_MESSAGES) {
      start = i + 1;
      break;
    }
  }
  const cleared = start > 0;
  let list: StoredMessage[] = cleared ? [] : current.slice();
  const at = indexFor(list, cleared ? undefined : current);
  const removed = new Set<string>();
  let pure = !cleared;
  const appended: StoredMessage[] = [];
  for (const m of incoming.slice(start)) {
    if (m.role === "remove") {
      if (!at.has(m.id)) {
        throw new InvalidUpdateError(
          "INVALID_UPDATE",
          `Attempting to delete a message with an ID that doesn't exist ('${m.id}'). Remove only messages that are in the state.`,
          { details: { id: m.id } },
        );
      }
      removed.add(m.id);
      pure = false;
      continue;
    }
    const message = m as StoredMessage;
    const index = at.get(message.id);
    if (index !== undefined) {
      list[index] = message;
      removed.delete(message.id);
      pure = false;
    } else {
      at.set(message.id, list.length);
      list.push(message);
      appended.push(message);
    }
  }
  if (removed.size > 0) list = list.filter((m) => !removed.has(m.id));
  // a pure append keeps the positions of the list it extends: the next merge reuses this index
  if (pure) lists.set(list, { base: current, index: at.map, classes: undefined });
  return { value: list, appended: pure ? appended : null };
}

/** What the layer knows of a stored message list: one WeakMap entry per list (each entry costs). */
interface ListFacts {
  /** The list a pure append extended (its first items are that list's, in order). */
  base: readonly StoredMessage[] | undefined;
  /** Where each message id sits (see {@link indexFor}). */
  index: Map<string, number> | undefined;
  /** The list read as LangChain classes, so that a node's read converts only what was appended. */
  classes: readonly BaseMessage[] | undefined;
}

const lists = new ObjectLink<ListFacts>();

/**
 * A stored message list as a node reads it: LangChain classes, in a new array (a node may change its
 * own). A list that extends one already read converts only its new tail, so reading a conversation
 * at every step costs the new messages, not the whole history again. @internal
 */
export function classListOf(list: readonly StoredMessage[]): BaseMessage[] {
  const facts = lists.get(list);
  if (facts?.classes !== undefined) return facts.classes.slice();
  let converted: BaseMessage[];
  const base = facts?.base;
  const baseClasses = base !== undefined && base.length <= list.length ? lists.get(base)?.classes : undefined;
  if (base !== undefined && baseClasses !== undefined) {
    converted = baseClasses.slice();
    for (let i = base.length; i < list.length; i++) converted.push(toLangChainMessage(list[i]));
  } else converted = list.map(toLangChainMessage);
  if (facts !== undefined) facts.classes = converted;
  else lists.set(list, { base: undefined, index: undefined, classes: converted });
  return converted.slice();
}

/*
 * Where each message id sits, per list (`ListFacts.index`): kept between merges, so that appending to a
 * conversation of n messages costs the new messages, not a map of all n (n² over a conversation). A map
 * may be shared by lists that extend one another, so each answer is checked against the list itself.
 */

interface ListIndex {
  map: Map<string, number>;
  get(id: string): number | undefined;
  has(id: string): boolean;
  set(id: string, index: number): void;
}

function indexFor(list: StoredMessage[], base: readonly StoredMessage[] | undefined): ListIndex {
  let map = base ? lists.get(base)?.index : undefined;
  if (!map) {
    map = new Map();
    for (let i = 0; i < list.length; i++) map.set((list[i] as StoredMessage).id, i);
  }
  const own = map;
  const get = (id: string): number | undefined => {
    const i = own.get(id);
    if (i === undefined) return undefined;
    if (list[i]?.id === id) return i;
    // the shared map was written by another list that extends the same base: look it up here
    const found = list.findIndex((m) => m.id === id);
    return found === -1 ? undefined : found;
  };
  return {
    map: own,
    get,
    has: (id) => get(id) !== undefined,
    set: (id, index) => {
      own.set(id, index);
    },
  };
}

/**
 * LangGraph's reducer for a messages key: appends messages, replaces those whose id is already there,
 * deletes on a `RemoveMessage` (all of them with {@link REMOVE_ALL_MESSAGES}), and gives messages
 * without an id one.
 *
 * @example
 * const State = Annotation.Root({ messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }) });
 */
export function messagesStateReducer(left: Messages, right: Messages): BaseMessage[] {
  const current = listOf(left).map((m) => toStoredMessage(m) as StoredMessage);
  return mergeStored(current, right).value.map((m) => toLangChainMessage(m));
}

/**
 * The same function as {@link messagesStateReducer}, under LangGraph's other name.
 *
 * @example
 * const merged = addMessages([new HumanMessage("hi")], [new AIMessage("hello")]);
 */
export const addMessages = messagesStateReducer;
