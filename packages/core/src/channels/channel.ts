/** How a channel combines the writes of one superstep. */
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
}

/** Any channel, whatever its value and update types (public: state schemas in the .d.ts name it). */
// biome-ignore lint/suspicious/noExplicitAny: a schema mixes channels of every value type.
export type AnyChannel = Channel<any, any>;

type Initial<T> = T | (() => T);

function initialOf<T>(initial: Initial<T>): () => T {
  return typeof initial === "function" ? (initial as () => T) : () => initial;
}

/**
 * Last write wins. Two nodes writing it in the same superstep is an `InvalidUpdateError`.
 *
 * @example
 * const schema = { status: channel.value<"draft" | "approved">("draft"), note: channel.value<string>() };
 */
export function value<T>(initial: Initial<T>): Channel<T>;
export function value<T>(): Channel<T | undefined>;
export function value<T>(initial?: Initial<T>): Channel<T | undefined> {
  const make = initial === undefined ? () => undefined : initialOf(initial);
  return {
    kind: "value",
    appendOnly: false,
    initial: make,
    apply: (_current, updates) => ({ value: updates[updates.length - 1], appended: null }),
  };
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
  options: { appendOnly?: boolean } = {},
): Channel<V, U> {
  const appendOnly = options.appendOnly === true;
  return {
    kind: "reduce",
    appendOnly,
    initial: initialOf(initial),
    apply(current, updates) {
      let next = current;
      for (const update of updates) next = fn(next, update);
      return { value: next, appended: appendOnly ? appendedItems(current, next) : null };
    },
  };
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
export function append<T>(initial: Initial<T[]> = () => []): Channel<T[], T[]> {
  const make = initialOf(initial);
  return {
    kind: "append",
    appendOnly: true,
    initial: () => make().slice(),
    apply(current, updates) {
      const appended: T[] = [];
      for (const update of updates) {
        if (Array.isArray(update)) for (const item of update) appended.push(item);
        else appended.push(update as T);
      }
      return { value: current.length === 0 ? appended.slice() : current.concat(appended), appended };
    },
  };
}
