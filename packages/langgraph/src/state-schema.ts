import { type AnyChannel, channel, type StateSchema } from "@trellis/core";
import { BaseChannel, LastValue, type StateDefinition } from "./annotation.js";
import { fromStoredValue, type StoredMessage, toStoredMessage, toStoredValue } from "./message-convert.js";
import { classListOf, mergeStored } from "./messages-reducer.js";

/**
 * A compat graph's keys as the runtime needs them: the Trellis channels, which keys hold messages, and
 * which ones input and output show. @internal
 */
export interface CompatSchema {
  channels: StateSchema;
  definition: StateDefinition;
  messageKeys: ReadonlySet<string>;
  inputKeys: readonly string[];
  outputKeys: readonly string[];
}

const MESSAGES_JSON_SCHEMA = { type: "array", items: { type: "object" } } as const;

/** A Trellis channel holding stored messages, merged as `messagesStateReducer` merges them. */
function messagesChannel(initial: (() => unknown) | undefined): AnyChannel {
  return {
    kind: "messages",
    appendOnly: true,
    jsonSchema: MESSAGES_JSON_SCHEMA,
    initial: () => (initial ? mergeStored([], initial() ?? []).value : []),
    apply(current: StoredMessage[], updates: readonly unknown[]) {
      let value = current;
      let appended: StoredMessage[] | null = [];
      for (const update of updates) {
        const merged = mergeStored(value, update);
        value = merged.value;
        appended = appended && merged.appended ? appended.concat(merged.appended) : null;
      }
      return { value, appended };
    },
  };
}

function reducerChannel(spec: BaseChannel): AnyChannel {
  const reducer = spec.reducer as (a: unknown, b: unknown) => unknown;
  const initial = spec.initial;
  return {
    kind: "reduce",
    appendOnly: false,
    initial: () => (initial ? toStoredValue(initial()) : undefined),
    apply(current: unknown, updates: readonly unknown[]) {
      let value = current;
      for (const update of updates) {
        // as LangGraph: a key with no default takes its first write as it is
        value = value === undefined ? update : toStoredValue(reducer(fromStoredValue(value), fromStoredValue(update)));
      }
      return { value, appended: null };
    },
  };
}

function channelOf(spec: BaseChannel): AnyChannel {
  if (spec.isMessages) return messagesChannel(spec.initial);
  if (spec.reducer) return reducerChannel(spec);
  const initial = spec.initial;
  return initial ? channel.value(() => toStoredValue(initial())) : channel.value(undefined);
}

/**
 * Builds the Trellis schema of a state definition, plus the keys its input and output show.
 * @internal
 */
export function compatSchema(
  state: StateDefinition,
  input: StateDefinition | undefined,
  output: StateDefinition | undefined,
): CompatSchema {
  const definition: StateDefinition = { ...state, ...input, ...output };
  const channels: StateSchema = {};
  const messageKeys = new Set<string>();
  for (const [key, given] of Object.entries(definition)) {
    // `Annotation<T>` passed without calling it is a last-value key, as LangGraph reads it
    const spec = given instanceof BaseChannel ? given : new LastValue(undefined, undefined);
    definition[key] = spec;
    channels[key] = channelOf(spec);
    if (spec.isMessages) messageKeys.add(key);
  }
  return {
    channels,
    definition,
    messageKeys,
    inputKeys: Object.keys(input ?? definition),
    outputKeys: Object.keys(output ?? state),
  };
}

/**
 * The state as a LangGraph node reads it: messages as LangChain classes, keys never written left out.
 * A value that is not a state object (a `Send` argument that is a string, say) passes unchanged.
 * @internal
 */
export function toGraphState(schema: CompatSchema, values: unknown, keys?: readonly string[]): Record<string, unknown> {
  if (values === null || typeof values !== "object" || Array.isArray(values)) return values as Record<string, unknown>;
  const source = values as Record<string, unknown>;
  // a Send's argument (not the frozen state) that holds nothing to convert is read as it was sent
  if (keys === undefined && !Object.isFrozen(source) && readsAsIs(schema, source)) return source;
  const out: Record<string, unknown> = {};
  for (const key of keys ?? Object.keys(source)) {
    const value = source[key];
    if (value === undefined) continue;
    if (schema.messageKeys.has(key) && Array.isArray(value)) out[key] = classListOf(value as StoredMessage[]);
    else out[key] = fromStoredValue(value);
  }
  return out;
}

// The checks below run once per task: `for…in` with `Object.hasOwn` walks the keys `Object.keys` lists
// without making an array of them.

/** Whether a node reads `source` unchanged: no key left unset, no stored message to build. */
function readsAsIs(schema: CompatSchema, source: Record<string, unknown>): boolean {
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const value = source[key];
    if (value === undefined || schema.messageKeys.has(key) || fromStoredValue(value) !== value) return false;
  }
  return true;
}

/** Whether the channels take `update` as it is: every key declared and set, no LangChain message in it. */
function storesAsIs(schema: CompatSchema, update: Record<string, unknown>): boolean {
  for (const key in update) {
    if (!Object.hasOwn(update, key)) continue;
    const value = update[key];
    if (!(key in schema.definition) || value === undefined || schema.messageKeys.has(key)) return false;
    if (toStoredValue(value) !== value) return false;
  }
  return true;
}

/**
 * A node's (or caller's) update as the Trellis channels take it: keys the schema does not declare are
 * dropped (LangGraph's policy, declared by the compat graph), LangChain messages become stored ones.
 * @internal
 */
export function toStoredUpdate(schema: CompatSchema, update: unknown): Record<string, unknown> | undefined {
  if (update === null || update === undefined || typeof update !== "object") return undefined;
  if (storesAsIs(schema, update as Record<string, unknown>)) return update as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(update as Record<string, unknown>)) {
    if (!(key in schema.definition) || value === undefined) continue;
    if (schema.messageKeys.has(key)) {
      out[key] = Array.isArray(value) ? value.map(toStoredMessage) : toStoredMessage(value);
    } else out[key] = toStoredValue(value);
  }
  return out;
}
