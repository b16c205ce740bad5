import type { JsonSchema, StandardSchemaV1 } from "../schema/standard-schema.js";

/**
 * How a channel combines the writes of one superstep.
 *
 * @example
 * const appendOnly = (c: AnyChannel): boolean => c.kind === "append" || c.kind === "messages";
 */
export type ChannelKind = "value" | "reduce" | "append" | "messages";

/**
 * One key of a state schema: its default and how writes combine. Build them with the `channel`
 * helpers; the runtime only calls these three members.
 *
 * @example
 * const schema = { count: channel.reduce((a: number, b: number) => a + b, 0) };
 */
export interface Channel<V, U = V> {
  readonly kind: ChannelKind;
  /** True when every change only appends to a list, so checkpoints store just the new items. */
  readonly appendOnly: boolean;
  /** A fresh default value. */
  initial(): V;
  /**
   * Folds one superstep's writes, in task order, into the current value. `appended` lists the new items
   * when the change was a pure append, else `null`.
   */
  apply(current: V, updates: readonly U[]): { value: V; appended: unknown[] | null };
  /**
   * Checks the key's value after a caller's write (a run's input, `updateState`, a `Command`'s update):
   * a value that fails is refused with `INVALID_STATE` naming the key, and nothing is written. Node
   * writes are not checked.
   */
  readonly schema?: StandardSchemaV1 | undefined;
  /** The key's JSON Schema for `getSchemas()`; by default the `schema`'s own (zod ≥ 4.2 has one). */
  readonly jsonSchema?: JsonSchema | undefined;
}

/**
 * What a channel builder takes besides its default: the schema its values must meet.
 *
 * @example
 * import { z } from "zod";
 * const schema = { revision_count: channel.value(0, { schema: z.number().int().min(0) }) };
 */
export interface ChannelOptions<V> {
  /** A Standard Schema (zod 4, Valibot, ArkType…) that the key's value must meet after a caller's write. */
  schema?: StandardSchemaV1<unknown, V>;
  /** The JSON Schema shown by `getSchemas()`, for a `schema` that cannot produce one (or to override it). */
  jsonSchema?: JsonSchema;
}

function typed<V, U>(channel: Channel<V, U>, options: ChannelOptions<V> | undefined): Channel<V, U> {
  if (options?.schema === undefined && options?.jsonSchema === undefined) return channel;
  return { ...channel, schema: options.schema as StandardSchemaV1 | undefined, jsonSchema: options.jsonSchema };
}

/**
 * Any channel, whatever its value and update types (public: state schemas in the .d.ts name it).
 *
 * @example
 * const keys: Record<string, AnyChannel> = { topic: channel.value(""), log: channel.append<string>() };
 */
// biome-ignore lint/suspicious/noExplicitAny: a schema mixes channels of every value type.
export type AnyChannel = Channel<any, any>;

type Initial<T> = T | (() => T);

function initialOf<T>(initial: Initial<T>): () => T {
  return typeof initial === "function" ? (initial as () => T) : () => initial;
}

/**
 * Last write wins. Two nodes writing it in the same superstep is an `InvalidUpdateError`. With a
 * `schema`, what callers write must meet it (see {@link ChannelOptions}).
 *
 * @example
 * const schema = {
 *   status: channel.value<"draft" | "approved">("draft"),
 *   note: channel.value<string>(),
 *   channel: channel.value("teams", { schema: z.enum(["teams", "slack"]) }),
 * };
 */
export function value<T>(initial: Initial<T>, options?: ChannelOptions<T>): Channel<T>;
export function value<T>(initial?: undefined, options?: ChannelOptions<T | undefined>): Channel<T | undefined>;
export function value<T>(initial?: Initial<T>, options?: ChannelOptions<T | undefined>): Channel<T | undefined> {
  const make = initial === undefined ? () => undefined : initialOf(initial);
  return typed(
    {
      kind: "value",
      appendOnly: false,
      initial: make,
      apply: (_current, updates) => ({ value: updates[updates.length - 1], appended: null }),
    },
    options,
  );
}

/**
 * Folds every write into the value with `fn`, in a deterministic order (the order of the tasks that
 * wrote). Declare `appendOnly` when `fn` only ever appends to a list, and checkpoints store deltas.
 *
 * @example
 * const schema = { total: channel.reduce((sum: number, n: number) => sum + n, 0) };
 */
export function reduce<V, U = V>(
  fn: (current: V, update: U) => V,
  initial: Initial<V>,
  options: { appendOnly?: boolean } & ChannelOptions<V> = {},
): Channel<V, U> {
  const appendOnly = options.appendOnly === true;
  return typed(
    {
      kind: "reduce",
      appendOnly,
      initial: initialOf(initial),
      apply(current, updates) {
        let next = current;
        for (const update of updates) next = fn(next, update);
        return { value: next, appended: appendOnly ? appendedItems(current, next) : null };
      },
    },
    options,
  );
}

/** The items `next` adds after `current`, or null when `next` is not `current` plus a tail. */
function appendedItems(current: unknown, next: unknown): unknown[] | null {
  if (!Array.isArray(current) || !Array.isArray(next) || next.length < current.length) return null;
  for (let i = 0; i < current.length; i++) if (current[i] !== next[i]) return null;
  return next.slice(current.length);
}

/**
 * A list that writes extend: each write is a list of items, concatenated in task order.
 *
 * @example
 * const schema = { results: channel.append<string>() };
 * // a node returns { results: ["one more"] }
 */
export function append<T>(initial: Initial<T[]> = () => [], options?: ChannelOptions<T[]>): Channel<T[], T[]> {
  const make = initialOf(initial);
  return typed(
    {
      kind: "append",
      appendOnly: true,
      initial: () => make().slice(),
      apply(current: T[], updates: readonly T[][]) {
        const appended: T[] = [];
        for (const update of updates) {
          if (Array.isArray(update)) for (const item of update) appended.push(item);
          else appended.push(update as T);
        }
        return { value: current.length === 0 ? appended.slice() : current.concat(appended), appended };
      },
    },
    options,
  );
}
