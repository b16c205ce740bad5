import { type Clock, systemClock } from "@trellis/common";
import { generateText, type LanguageModel, type LanguageModelUsage, streamText } from "ai";
import { BaseChatModel, type ChatDelta, type ChatRequest } from "./chat-model.js";
import { type AssistantMessage, type Message, newMessageId, type TokenUsage, type ToolCall } from "./messages.js";
import { ModelError, toModelError } from "./model-errors.js";
import { parseToolArgs } from "./normalize-message.js";
import { type RetryOptions, retryDelay, sleepOn } from "./retry.js";
import { toAiToolChoice, toModelMessages, toToolSet } from "./to-model-messages.js";

/**
 * An AI SDK language model object (not a gateway id string).
 *
 * @example
 * const lm: AiSdkLanguageModel = createOpenAI({ apiKey }).chat("gpt-4o-mini");
 */
export type AiSdkLanguageModel = Exclude<LanguageModel, string>;

/**
 * Options of {@link AiSdkChatModel}.
 *
 * @example
 * new AiSdkChatModel(lm, { provider: "openai", temperature: 0, timeoutMs: 30_000, retry: { maxRetries: 3 } });
 */
export interface AiSdkChatModelOptions {
  /** Provider name reported by the model. Defaults to the AI SDK model's `provider`. */
  provider?: string;
  /** Default temperature of every call; a call's own `temperature` wins. */
  temperature?: number;
  /** Default output token limit of every call. */
  maxTokens?: number;
  /**
   * Milliseconds to wait for a reply (for `invoke`) or for the next piece of a stream. Default
   * 120 000. A call's own `timeoutMs` wins.
   */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Time source of timeouts and retry waits. Defaults to the system clock. */
  clock?: Clock;
  /** Ids of the assistant messages. Defaults to random UUIDs. */
  newId?: () => string;
  /**
   * What becomes of an image or file part given by URL: `"pass"` sends the URL to the provider, which
   * fetches it (the process never fetches what a message names); `"download"` is the AI SDK's way —
   * fetched here (private addresses refused) when the provider does not take that URL itself. Default
   * `"download"`; `createChatModel` passes URLs to every provider but Google, whose API takes none.
   */
  urlParts?: "pass" | "download";
}

/** An AI SDK download function that fetches nothing: every URL goes to the provider as it is. */
const passUrls = async (requested: ReadonlyArray<{ url: URL }>) => requested.map(() => null);

interface PendingCall {
  index: number;
  id: string;
  name: string;
  argsText: string;
  input?: unknown;
}

/**
 * A {@link ChatModel} over any AI SDK v6 language model. Usually made by `createChatModel`; use it
 * directly for a provider `createChatModel` does not know. Provider failures become
 * {@link ModelError}s; rate limits and 5xx are retried as {@link RetryOptions} says (a stream only
 * before its first delta); aborting the call's `signal` rejects with the signal's reason.
 *
 * @example
 * import { createAnthropic } from "@ai-sdk/anthropic";
 * const model = new AiSdkChatModel(createAnthropic({ apiKey }).languageModel("claude-sonnet-4-5"));
 * const reply = await model.invoke([userMessage("Hi")]);
 */
export class AiSdkChatModel extends BaseChatModel {
  readonly provider: string;
  readonly model: string;
  readonly #lm: AiSdkLanguageModel;
  readonly #options: AiSdkChatModelOptions;
  readonly #clock: Clock;
  readonly #newId: () => string;

  constructor(languageModel: AiSdkLanguageModel, options: AiSdkChatModelOptions = {}) {
    super();
    this.#lm = languageModel;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? newMessageId;
    this.provider = options.provider ?? languageModel.provider;
    this.model = languageModel.modelId;
  }

  protected async generate(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#generateOnce(messages, request);
      } catch (error) {
        await this.#beforeRetry(error, attempt, request.signal);
      }
    }
  }

  protected override async *streamDeltas(messages: Message[], request: ChatRequest): AsyncIterable<ChatDelta> {
    for (let attempt = 1; ; attempt++) {
      let started = false;
      try {
        for await (const delta of this.#streamOnce(messages, request)) {
          started = true;
          yield delta;
        }
        return;
      } catch (error) {
        if (started) throw withAttempts(error, attempt);
        await this.#beforeRetry(error, attempt, request.signal);
      }
    }
  }

  /** Throws when `error` must not be retried; otherwise waits the retry delay. */
  async #beforeRetry(error: unknown, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted || !(error instanceof ModelError)) throw error;
    const delay = retryDelay(error, attempt - 1, this.#options.retry ?? {});
    if (delay === undefined) throw withAttempts(error, attempt);
    const sleep = this.#options.retry?.sleep ?? ((ms, s) => sleepOn(this.#clock, ms, s));
    await sleep(delay, signal);
  }

  async #generateOnce(messages: Message[], request: ChatRequest): Promise<AssistantMessage> {
    const call = this.#callSignal(request);
    try {
      const result = await generateText({ ...this.#settings(messages, request), abortSignal: call.signal });
      const toolCalls = result.toolCalls.map((c) => toToolCall(c.toolCallId, c.toolName, c.input));
      return this.#message(result.text, toolCalls, result.usage);
    } catch (error) {
      throw this.#classify(error, call, request.signal);
    } finally {
      call.dispose();
    }
  }

  async *#streamOnce(messages: Message[], request: ChatRequest): AsyncIterable<ChatDelta> {
    const call = this.#callSignal(request);
    const messageId = this.#newId();
    const calls = new Map<string, PendingCall>();
    let text = "";
    let usage: LanguageModelUsage | undefined;
    try {
      const result = streamText({
        ...this.#settings(messages, request),
        abortSignal: call.signal,
        onError: () => {}, // errors arrive as stream parts below; the default handler would log them
      });
      for await (const part of result.fullStream) {
        call.rearm();
        switch (part.type) {
          case "text-delta":
            if (part.text === "") break;
            text += part.text;
            yield { type: "text", messageId, text: part.text };
            break;
          case "tool-input-start":
            calls.set(part.id, { index: calls.size, id: part.id, name: part.toolName, argsText: "" });
            break;
          case "tool-input-delta": {
            const pending = calls.get(part.id);
            if (!pending || part.delta === "") break;
            pending.argsText += part.delta;
            yield {
              type: "tool-call",
              messageId,
              index: pending.index,
              id: pending.id,
              name: pending.name,
              argsDelta: part.delta,
            };
            break;
          }
          case "tool-call": {
            let pending = calls.get(part.toolCallId);
            if (!pending) {
              pending = { index: calls.size, id: part.toolCallId, name: part.toolName, argsText: "" };
              calls.set(part.toolCallId, pending);
            }
            pending.input = part.input;
            if (pending.argsText === "") {
              const argsDelta = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
              pending.argsText = argsDelta;
              yield {
                type: "tool-call",
                messageId,
                index: pending.index,
                id: pending.id,
                name: pending.name,
                argsDelta,
              };
            }
            break;
          }
          case "finish":
            usage = part.totalUsage;
            break;
          case "error":
            throw part.error;
          case "abort":
            throw new Error("The model call was aborted.");
        }
      }
    } catch (error) {
      throw this.#classify(error, call, request.signal);
    } finally {
      call.dispose();
    }
    const toolCalls = [...calls.values()].map((c) => toToolCall(c.id, c.name, c.input ?? c.argsText));
    yield { type: "message", message: this.#message(text, toolCalls, usage, messageId) };
  }

  #settings(messages: Message[], request: ChatRequest) {
    const temperature = request.temperature ?? this.#options.temperature;
    const maxOutputTokens = request.maxTokens ?? this.#options.maxTokens;
    const tools = request.tools ?? [];
    return {
      model: this.#lm,
      messages: toModelMessages(messages),
      allowSystemInMessages: true,
      maxRetries: 0,
      ...(tools.length > 0 ? { tools: toToolSet(tools) } : {}),
      ...(tools.length > 0 && request.toolChoice ? { toolChoice: toAiToolChoice(request.toolChoice) } : {}),
      ...(temperature === undefined ? {} : { temperature }),
      ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
      ...(this.#options.urlParts === "pass" ? { experimental_download: passUrls } : {}),
    };
  }

  #message(
    text: string,
    toolCalls: ToolCall[],
    usage: LanguageModelUsage | undefined,
    id = this.#newId(),
  ): AssistantMessage {
    const message: AssistantMessage = { id, role: "assistant", content: text };
    if (toolCalls.length > 0) message.toolCalls = toolCalls;
    const tokens = usage && toTokenUsage(usage);
    if (tokens) message.usage = tokens;
    return message;
  }

  #callSignal(request: ChatRequest): CallSignal {
    return new CallSignal(this.#clock, request.timeoutMs ?? this.#options.timeoutMs ?? 120_000, request.signal);
  }

  #classify(error: unknown, call: CallSignal, outer: AbortSignal | undefined): unknown {
    if (outer?.aborted) return outer.reason;
    return toModelError(error, {
      provider: this.provider,
      model: this.model,
      now: this.#clock.now(),
      ...(call.timedOut ? { timedOutAfterMs: call.timeoutMs } : {}),
    });
  }
}

/** An abort signal that fires on the caller's signal or after `timeoutMs` of silence. */
class CallSignal {
  readonly #controller = new AbortController();
  readonly #clock: Clock;
  readonly #outer: AbortSignal | undefined;
  readonly timeoutMs: number;
  #handle: unknown;
  timedOut = false;

  constructor(clock: Clock, timeoutMs: number, outer: AbortSignal | undefined) {
    this.#clock = clock;
    this.timeoutMs = timeoutMs;
    this.#outer = outer;
    outer?.addEventListener("abort", this.#onOuterAbort, { once: true });
    this.rearm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Restarts the timeout: called on every stream part. */
  rearm(): void {
    if (this.#handle !== undefined) this.#clock.clearTimeout(this.#handle);
    this.#handle = this.#clock.setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(new Error(`Timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }

  /** Stops the timer and releases the request (a stream left early stops its download). */
  dispose(): void {
    this.#clock.clearTimeout(this.#handle);
    this.#outer?.removeEventListener("abort", this.#onOuterAbort);
    if (!this.#controller.signal.aborted) this.#controller.abort(new Error("The model call is over."));
  }

  readonly #onOuterAbort = (): void => {
    this.#controller.abort(this.#outer?.reason);
  };
}

function toToolCall(id: string, name: string, input: unknown): ToolCall {
  return { id, name, ...parseToolArgs(input) };
}

function toTokenUsage(usage: LanguageModelUsage): TokenUsage | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  const tokens: TokenUsage = {
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
  };
  const cached = usage.inputTokenDetails?.cacheReadTokens;
  if (cached) tokens.cachedInputTokens = cached;
  const reasoning = usage.outputTokenDetails?.reasoningTokens;
  if (reasoning) tokens.reasoningTokens = reasoning;
  return tokens;
}

function withAttempts(error: unknown, attempts: number): unknown {
  if (!(error instanceof ModelError) || attempts <= 1) return error;
  const suffix = ` (gave up after ${attempts} attempts)`;
  return new ModelError(error.code, error.message + suffix, {
    details: { ...error.details, attempts },
    cause: error.cause,
    retryable: error.retryable,
  });
}
