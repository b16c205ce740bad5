import { deltasFromMessage } from "./message-deltas.js";
import type { AssistantMessage, Message } from "./messages.js";
import { ModelError } from "./model-errors.js";
import { traceModelCall, traceModelStream } from "./model-tracing.js";
import { type MessageInput, normalizeMessages } from "./normalize-message.js";

/**
 * A JSON Schema object, as sent to the model to describe a tool's arguments.
 *
 * @example
 * const schema: JsonSchema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
 */
export type JsonSchema = { [key: string]: unknown };

/**
 * What the model sees of a tool. Every {@link Tool} made by `tool()` is one.
 *
 * @example
 * const def: ToolDefinition = { name: "search", description: "Search the notes", parameters: { type: "object", properties: {} } };
 */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

/**
 * Whether the model may (`"auto"`), must not (`"none"`) or must (`"required"`) call a tool, or must
 * call the named one.
 *
 * @example
 * await model.invoke(messages, { tools, toolChoice: { name: "get_guia" } });
 */
export type ToolChoice = "auto" | "none" | "required" | { name: string };

/**
 * One piece of a streamed reply. Text and tool-call pieces carry the id of the message being built, so
 * a listener can group them; the last delta of every stream is `{ type: "message" }` with the full
 * message (same id).
 *
 * @example
 * for await (const d of model.stream(messages)) if (d.type === "text") process.stdout.write(d.text);
 */
export type ChatDelta =
  | { type: "text"; messageId: string; text: string }
  | {
      type: "tool-call";
      messageId: string;
      /** Position of the call in the message's `toolCalls`. */
      index: number;
      id: string;
      name: string;
      /** The next piece of the arguments' JSON text. */
      argsDelta: string;
    }
  | { type: "message"; message: AssistantMessage };

/**
 * Receives streamed deltas; see {@link ChatCallOptions.onChunk}.
 *
 * @example
 * const listener: ChunkListener = (d) => { if (d.type === "text") tokens.push(d.text); };
 */
export type ChunkListener = (delta: ChatDelta) => void;

/**
 * Options of one model call.
 *
 * @example
 * await model.invoke(messages, { tools: [search], temperature: 0, maxTokens: 400, signal: ctx.signal });
 */
export interface ChatCallOptions {
  tools?: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  temperature?: number;
  maxTokens?: number;
  /** Aborting it stops the call and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Called with every delta while the reply is produced. When set, `invoke` streams from the model
   * under the hood and still resolves to the full message (inside a graph node, pass the runtime's
   * `emitMessageChunk` to feed the `messages` stream mode). `false` is the same as leaving it out.
   */
  onChunk?: ChunkListener | false;
  /** Per-call override of the model's timeout, in milliseconds (provider models only). */
  timeoutMs?: number;
}

/**
 * The contract every model implements: the AI SDK providers, `ScriptedChatModel`, `RuleChatModel`.
 * Messages may be given in any shape `normalizeMessage` accepts.
 *
 * @example
 * const reply = await model.invoke([userMessage("Hi")]);
 * for await (const delta of model.stream([userMessage("Hi")])) console.log(delta);
 */
export interface ChatModel {
  /** Provider name, e.g. `"openai"`, `"rules"`. */
  readonly provider: string;
  /** Model id, e.g. `"gpt-4o-mini"`. */
  readonly model: string;
  /** Resolves to the full assistant message, with tool calls and usage. */
  invoke(messages: readonly MessageInput[], options?: ChatCallOptions): Promise<AssistantMessage>;
  /** Yields text and tool-call deltas, then the full message as the last delta. */
  stream(messages: readonly MessageInput[], options?: ChatCallOptions): AsyncIterable<ChatDelta>;
}

/**
 * Options passed to a {@link BaseChatModel}'s implementation: the call options without the listener.
 *
 * @example
 * protected async generate(messages: Message[], options: ChatRequest) { return reply(messages, options.tools); }
 */
export type ChatRequest = Omit<ChatCallOptions, "onChunk">;

/**
 * Base for models: implement `generate` (and `streamDeltas` when the model streams natively);
 * `invoke` and `stream` normalise messages, honour the signal and feed chunk listeners.
 *
 * @example
 * class EchoModel extends BaseChatModel {
 *   readonly provider = "echo";
 *   readonly model = "echo";
 *   protected async generate(messages: Message[]) {
 *     return assistantMessage(messages.at(-1)?.content ?? "");
 *   }
 * }
 */
export abstract class BaseChatModel implements ChatModel {
  abstract readonly provider: string;
  abstract readonly model: string;

  /** Produces the full reply. */
  protected abstract generate(messages: Message[], options: ChatRequest): Promise<AssistantMessage>;

  /**
   * Produces the reply as deltas ending with `{ type: "message" }`. The default splits the reply of
   * `generate` into word chunks; models that stream natively override it.
   */
  protected async *streamDeltas(messages: Message[], options: ChatRequest): AsyncIterable<ChatDelta> {
    yield* deltasFromMessage(await this.generate(messages, options));
  }

  async invoke(messages: readonly MessageInput[], options: ChatCallOptions = {}): Promise<AssistantMessage> {
    const listener = resolveListener(options);
    const normalized = normalizeMessages(messages);
    const request = withoutListener(options);
    options.signal?.throwIfAborted();
    return await traceModelCall(this, normalized, request, () => this.#invoke(normalized, request, listener));
  }

  async #invoke(
    normalized: Message[],
    request: ChatRequest,
    listener: ChunkListener | undefined,
  ): Promise<AssistantMessage> {
    if (!listener) return await this.generate(normalized, request);
    let final: AssistantMessage | undefined;
    for await (const delta of this.streamDeltas(normalized, request)) {
      listener(delta);
      if (delta.type === "message") final = delta.message;
    }
    if (!final) throw streamEndedEarly(this);
    return final;
  }

  async *stream(messages: readonly MessageInput[], options: ChatCallOptions = {}): AsyncIterable<ChatDelta> {
    const listener = resolveListener(options);
    const normalized = normalizeMessages(messages);
    options.signal?.throwIfAborted();
    let ended = false;
    const request = withoutListener(options);
    for await (const delta of traceModelStream(this, normalized, request, this.streamDeltas(normalized, request))) {
      listener?.(delta);
      if (delta.type === "message") ended = true;
      yield delta;
    }
    if (!ended) throw streamEndedEarly(this);
  }
}

function resolveListener(options: ChatCallOptions): ChunkListener | undefined {
  return options.onChunk === false ? undefined : options.onChunk;
}

function withoutListener(options: ChatCallOptions): ChatRequest {
  const { onChunk: _ignored, ...rest } = options;
  return rest;
}

function streamEndedEarly(model: ChatModel): ModelError {
  return new ModelError(
    "MODEL_BAD_RESPONSE",
    `The ${model.provider} model "${model.model}" ended its stream without a final message.`,
    { details: { provider: model.provider, model: model.model } },
  );
}
