import { createAzure } from "@ai-sdk/azure";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type Clock, TrellisError } from "@trellis/common";
import { AiSdkChatModel, type AiSdkChatModelOptions, type AiSdkLanguageModel } from "./ai-sdk-chat-model.js";
import type { ChatModel } from "./chat-model.js";
import type { RetryOptions } from "./retry.js";

/**
 * The providers `createChatModel` knows. `vllm` and `ollama` are `openai-compatible` with their usual
 * local address as the default `baseURL`.
 *
 * @example
 * const provider: ProviderName = "mistral";
 */
export type ProviderName = "openai" | "openai-compatible" | "vllm" | "ollama" | "mistral" | "google" | "azure";

/**
 * The provider names, for validation and help texts.
 *
 * @example
 * PROVIDER_NAMES.includes(process.env.TRELLIS_MODEL_PROVIDER as ProviderName);
 */
export const PROVIDER_NAMES: readonly ProviderName[] = [
  "openai",
  "openai-compatible",
  "vllm",
  "ollama",
  "mistral",
  "google",
  "azure",
];

/** Default addresses of the local OpenAI-compatible servers. */
const LOCAL_BASE_URLS: Partial<Record<ProviderName, string>> = {
  vllm: "http://localhost:8000/v1",
  ollama: "http://localhost:11434/v1",
};

/**
 * Options of {@link createChatModel}.
 *
 * @example
 * const options: CreateChatModelOptions = { provider: "openai", model: "gpt-4o-mini", temperature: 0 };
 */
export interface CreateChatModelOptions {
  provider: ProviderName;
  /** Model id; for Azure, the deployment name. */
  model: string;
  /** Falls back to the provider's own variable (OPENAI_API_KEY, MISTRAL_API_KEY, ...) at call time. */
  apiKey?: string;
  /** The provider's API root, e.g. `http://127.0.0.1:8000/v1` for vLLM. Required for `openai-compatible`. */
  baseURL?: string;
  temperature?: number;
  maxTokens?: number;
  /** See {@link AiSdkChatModelOptions.timeoutMs}. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /** Azure only: resource name (when no `baseURL`) and API version. */
  azure?: { resourceName?: string; apiVersion?: string; useDeploymentBasedUrls?: boolean };
  /** Replaces `fetch` (proxies, tests). */
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
  newId?: () => string;
}

/**
 * Creates a provider-backed {@link ChatModel} through the AI SDK (v6 provider packages). Every
 * provider speaks its chat API: OpenAI and Azure use Chat Completions (not the Responses API), so any
 * server that speaks OpenAI's chat-completions protocol works with `openai-compatible`.
 *
 * @example
 * const model = createChatModel({ provider: "openai", model: "gpt-4o-mini", apiKey: process.env.OPENAI_API_KEY });
 * const vllm = createChatModel({ provider: "vllm", model: "Qwen/Qwen2.5-7B-Instruct" }); // http://localhost:8000/v1
 * const reply = await model.invoke([userMessage("Hi")]);
 */
export function createChatModel(options: CreateChatModelOptions): ChatModel {
  if (!PROVIDER_NAMES.includes(options.provider)) {
    throw new TrellisError(
      "INVALID_CONFIG",
      `Unknown model provider "${String(options.provider)}"; use one of ${PROVIDER_NAMES.join(", ")}.`,
      { details: { provider: options.provider } },
    );
  }
  if (!options.model) {
    throw new TrellisError("INVALID_CONFIG", `The ${options.provider} model needs a model id (\`model\`).`, {
      details: { provider: options.provider },
    });
  }
  const modelOptions: AiSdkChatModelOptions = { provider: options.provider };
  if (options.temperature !== undefined) modelOptions.temperature = options.temperature;
  if (options.maxTokens !== undefined) modelOptions.maxTokens = options.maxTokens;
  if (options.timeoutMs !== undefined) modelOptions.timeoutMs = options.timeoutMs;
  if (options.retry) modelOptions.retry = options.retry;
  if (options.clock) modelOptions.clock = options.clock;
  if (options.newId) modelOptions.newId = options.newId;
  // an image or file URL in a message is the provider's to fetch; Google's API takes no such URL
  modelOptions.urlParts = options.provider === "google" ? "download" : "pass";
  return new AiSdkChatModel(languageModel(options), modelOptions);
}

function languageModel(options: CreateChatModelOptions): AiSdkLanguageModel {
  const common = {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  const baseURL = options.baseURL ?? LOCAL_BASE_URLS[options.provider];
  const withBase = baseURL === undefined ? common : { ...common, baseURL };
  switch (options.provider) {
    case "openai":
      return createOpenAI(withBase).chat(options.model);
    case "openai-compatible":
    case "vllm":
    case "ollama": {
      if (baseURL === undefined) {
        throw new TrellisError(
          "INVALID_CONFIG",
          "The openai-compatible provider needs `baseURL` (e.g. http://localhost:8000/v1), or TRELLIS_MODEL_BASE_URL.",
          { details: { provider: options.provider } },
        );
      }
      return createOpenAICompatible({ ...common, baseURL, name: options.provider, includeUsage: true }).chatModel(
        options.model,
      );
    }
    case "mistral":
      return createMistral(withBase).languageModel(options.model);
    case "google":
      return createGoogleGenerativeAI(withBase).languageModel(options.model);
    case "azure": {
      const azure = options.azure ?? {};
      return createAzure({
        ...withBase,
        ...(azure.resourceName === undefined ? {} : { resourceName: azure.resourceName }),
        ...(azure.apiVersion === undefined ? {} : { apiVersion: azure.apiVersion }),
        ...(azure.useDeploymentBasedUrls === undefined ? {} : { useDeploymentBasedUrls: azure.useDeploymentBasedUrls }),
      }).chat(options.model);
    }
  }
}
