import { BaseChatModel, type ChatRequest } from "./chat-model.js";
import { messageText } from "./content-parts.js";
import type { AssistantMessage, Message } from "./messages.js";
import { ModelError } from "./model-errors.js";
import { type OfflineReply, offlineMessage, type RecordedCall, recordCall } from "./offline-reply.js";

/**
 * One entry of a {@link ScriptedChatModel}'s script: a text reply, a reply object (text, tool calls,
 * usage), an `Error` to throw (to simulate a provider failure), or a function computing the reply from
 * the call.
 *
 * @example
 * const script: ScriptedReply[] = ["Hello!", { toolCalls: [{ name: "search", args: { q: "x" } }] }, new Error("boom")];
 */
export type ScriptedReply =
  | string
  | OfflineReply
  | Error
  | ((messages: Message[], request: ChatRequest) => string | OfflineReply | Promise<string | OfflineReply>);

/**
 * Options of {@link ScriptedChatModel}.
 *
 * @example
 * new ScriptedChatModel(["hi"], { model: "planner" });
 */
export interface ScriptedChatModelOptions {
  /** Model id it reports, and salt of its derived ids. Default `"scripted"`. */
  model?: string;
}

/**
 * A model for tests: it answers each call with the next entry of its script, records what it was
 * asked in `calls`, and throws a `ModelError` with code `MODEL_SCRIPT_EXHAUSTED` when the script has
 * run out. Streams split its replies into word chunks.
 *
 * @example
 * const model = new ScriptedChatModel([
 *   { toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] },
 *   "It is sunny in Paris.",
 * ]);
 * const first = await model.invoke(["Weather in Paris?"], { tools: [getWeather] });
 * first.toolCalls?.[0]?.name; // "get_weather"
 * model.calls[0]?.messages.at(-1)?.content; // "Weather in Paris?"
 */
export class ScriptedChatModel extends BaseChatModel {
  readonly provider = "scripted";
  readonly model: string;
  /** Every call received, in order. */
  readonly calls: RecordedCall[] = [];
  readonly #script: ScriptedReply[];

  constructor(script: readonly ScriptedReply[] = [], options: ScriptedChatModelOptions = {}) {
    super();
    this.#script = [...script];
    this.model = options.model ?? "scripted";
  }

  /** Appends replies to the script. */
  push(...replies: ScriptedReply[]): this {
    this.#script.push(...replies);
    return this;
  }

  /** Replies not used yet. */
  get remaining(): number {
    return this.#script.length;
  }

  protected async generate(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    this.calls.push(recordCall(messages, request));
    const entry = this.#script.shift();
    if (entry === undefined) throw this.#exhausted(messages);
    if (entry instanceof Error) throw entry;
    const reply = typeof entry === "function" ? await entry(messages, request) : entry;
    const salt = `${this.model}#${this.calls.length}`;
    return offlineMessage(typeof reply === "string" ? { content: reply } : reply, messages, salt);
  }

  #exhausted(messages: Message[]): ModelError {
    const n = this.calls.length;
    const last = messages.at(-1);
    const lastText = last
      ? ` The last message was ${last.role}: ${JSON.stringify(messageText(last).slice(0, 120))}.`
      : "";
    return new ModelError(
      "MODEL_SCRIPT_EXHAUSTED",
      `ScriptedChatModel "${this.model}" was called ${n} time${n === 1 ? "" : "s"} but its script had ${n - 1} ` +
        `repl${n - 1 === 1 ? "y" : "ies"}.${lastText} Add replies to the script (or push() more).`,
      { details: { provider: this.provider, model: this.model, attempts: n }, retryable: false },
    );
  }
}
