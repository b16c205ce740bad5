import { interrupt as coreInterrupt } from "@trellis/core";
import { toStoredValue } from "./message-convert.js";

/**
 * Pauses the running node (or task) and shows `value` to the person; returns their answer when the run
 * is resumed with `new Command({ resume })`. The i-th call in a node returns the i-th answer.
 *
 * @example
 * const answer = interrupt<{ question: string }, string>({ question: "Send the email?" });
 */
// biome-ignore lint/suspicious/noExplicitAny: LangGraph's default resume type is any.
export function interrupt<I = unknown, R = any>(value: I): R {
  return coreInterrupt<R>(toStoredValue(value));
}
