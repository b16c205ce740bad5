import { append, reduce, value } from "./channel.js";
import { messages } from "./messages.js";

/**
 * Builders for the channels of a state schema.
 *
 * @example
 * const schema = {
 *   topic: channel.value(""),
 *   revisions: channel.reduce((a: number, b: number) => a + b, 0),
 *   notes: channel.append<string>(),
 *   messages: channel.messages(),
 * };
 */
export const channel = { value, reduce, append, messages } as const;
export type { AnyChannel, Channel, ChannelKind, ChannelOptions } from "./channel.js";
export {
  type MessageLike,
  normalizeRole,
  REMOVE_ALL_MESSAGES,
  type RemoveMessage,
  removeMessage,
} from "./messages.js";
