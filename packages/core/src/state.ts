import type { AnyChannel, Channel } from "./channels/channel.js";

/**
 * A state schema: each key names a channel.
 *
 * @example
 * const schema = { topic: channel.value(""), messages: channel.messages() } satisfies StateSchema;
 */
export type StateSchema = Record<string, AnyChannel>;

/**
 * The state values a schema describes.
 *
 * @example
 * type State = StateOf<typeof schema>; // { topic: string; messages: MessageLike[] }
 */
export type StateOf<S extends StateSchema> = {
  [K in keyof S]: S[K] extends Channel<infer V, infer _U> ? V : never;
};

/**
 * A partial update to a schema's state: what a node returns.
 *
 * @example
 * const update: UpdateOf<typeof schema> = { topic: "safety" };
 */
export type UpdateOf<S extends StateSchema> = {
  [K in keyof S]?: S[K] extends Channel<infer _V, infer U> ? U : never;
};
