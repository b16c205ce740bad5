import { TrellisError } from "@trellis/common";
import type { ChatModel } from "./chat-model.js";
import { type CreateChatModelOptions, createChatModel, PROVIDER_NAMES, type ProviderName } from "./providers.js";

/**
 * Options of {@link chatModelFromEnv}.
 *
 * @example
 * chatModelFromEnv({ prefix: "TUTOR", fallback: new RuleChatModel({ rules }) });
 */
export interface ChatModelFromEnvOptions {
  /** Prefix of the Trellis variables: `TRELLIS` reads `TRELLIS_MODEL_PROVIDER`, `TRELLIS_MODEL`... */
  prefix?: string;
  /** Where to read variables. Defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Returned when no provider is configured (typically the app's offline `RuleChatModel`). */
  fallback?: ChatModel;
  /** Passed on to {@link createChatModel} (retry policy, clock, fetch...). */
  overrides?: Omit<Partial<CreateChatModelOptions>, "provider" | "model">;
}

/** The providers' own variables: key, base URL. */
const PROVIDER_VARS: Record<ProviderName, { apiKey?: string[]; baseURL?: string[] }> = {
  openai: { apiKey: ["OPENAI_API_KEY"], baseURL: ["OPENAI_BASE_URL"] },
  "openai-compatible": {},
  vllm: { apiKey: ["VLLM_API_KEY"] },
  ollama: {},
  mistral: { apiKey: ["MISTRAL_API_KEY"], baseURL: ["MISTRAL_BASE_URL"] },
  google: { apiKey: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"], baseURL: ["GOOGLE_GENERATIVE_AI_BASE_URL"] },
  azure: { apiKey: ["AZURE_API_KEY"], baseURL: ["AZURE_BASE_URL"] },
};

/** Values of `<PREFIX>_MODEL_PROVIDER` that mean "no provider: use the offline model". */
const OFFLINE = new Set(["", "offline", "rules", "none"]);

/**
 * Creates the model that environment variables describe, or returns `fallback` (or `undefined`) when
 * none is configured — `<PREFIX>_MODEL_PROVIDER` unset, empty or `offline`. With the default prefix
 * `TRELLIS`:
 *
 * | variable | meaning |
 * |---|---|
 * | `TRELLIS_MODEL_PROVIDER` | `openai`, `openai-compatible`, `vllm`, `ollama`, `mistral`, `google`, `azure`, or `offline` |
 * | `TRELLIS_MODEL` | model id (Azure: deployment name); required with a provider |
 * | `TRELLIS_MODEL_API_KEY` | key; else `OPENAI_API_KEY`, `MISTRAL_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY` (or `GEMINI_API_KEY`), `AZURE_API_KEY`, `VLLM_API_KEY` |
 * | `TRELLIS_MODEL_BASE_URL` | API root; else `OPENAI_BASE_URL`, `MISTRAL_BASE_URL`, `GOOGLE_GENERATIVE_AI_BASE_URL`, `AZURE_BASE_URL` |
 * | `TRELLIS_MODEL_TEMPERATURE`, `TRELLIS_MODEL_MAX_TOKENS`, `TRELLIS_MODEL_TIMEOUT_MS`, `TRELLIS_MODEL_MAX_RETRIES` | numbers |
 * | `AZURE_RESOURCE_NAME`, `AZURE_API_VERSION` | Azure only |
 *
 * A variable that is set but unusable (an unknown provider, a missing model, a non-number) throws a
 * `TrellisError` with code `INVALID_CONFIG` naming the variable.
 *
 * @example
 * const model = chatModelFromEnv({ fallback: offlineTutorModel() }); // always a ChatModel
 * const maybe = chatModelFromEnv("TUTOR"); // reads TUTOR_MODEL_PROVIDER...; undefined when unset
 */
export function chatModelFromEnv(options: ChatModelFromEnvOptions & { fallback: ChatModel }): ChatModel;
export function chatModelFromEnv(options?: string | ChatModelFromEnvOptions): ChatModel | undefined;
export function chatModelFromEnv(options: string | ChatModelFromEnvOptions = {}): ChatModel | undefined {
  const opts = typeof options === "string" ? { prefix: options } : options;
  const env = opts.env ?? process.env;
  const prefix = (opts.prefix ?? "TRELLIS").replace(/_+$/, "");
  const name = (suffix: string) => `${prefix}_${suffix}`;
  const read = (key: string) => {
    const value = env[key]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };

  const providerVar = name("MODEL_PROVIDER");
  const rawProvider = (read(providerVar) ?? "").toLowerCase();
  if (OFFLINE.has(rawProvider)) return opts.fallback;
  if (!(PROVIDER_NAMES as readonly string[]).includes(rawProvider)) {
    throw configError(providerVar, `is "${rawProvider}"; use one of ${PROVIDER_NAMES.join(", ")} or offline`);
  }
  const provider = rawProvider as ProviderName;
  const modelVar = name("MODEL");
  const model = read(modelVar);
  if (model === undefined)
    throw configError(modelVar, `must name the ${provider} model to use (${providerVar} is set)`);

  const created: CreateChatModelOptions = { ...opts.overrides, provider, model };
  const vars = PROVIDER_VARS[provider];
  const apiKey = read(name("MODEL_API_KEY")) ?? firstOf(vars.apiKey, read);
  if (apiKey !== undefined) created.apiKey = apiKey;
  const baseURL = read(name("MODEL_BASE_URL")) ?? firstOf(vars.baseURL, read);
  if (baseURL !== undefined) created.baseURL = baseURL;
  const temperature = readNumber(name("MODEL_TEMPERATURE"), read);
  if (temperature !== undefined) created.temperature = temperature;
  const maxTokens = readNumber(name("MODEL_MAX_TOKENS"), read);
  if (maxTokens !== undefined) created.maxTokens = maxTokens;
  const timeoutMs = readNumber(name("MODEL_TIMEOUT_MS"), read);
  if (timeoutMs !== undefined) created.timeoutMs = timeoutMs;
  const maxRetries = readNumber(name("MODEL_MAX_RETRIES"), read);
  if (maxRetries !== undefined) created.retry = { ...opts.overrides?.retry, maxRetries };
  if (provider === "azure") {
    const resourceName = read("AZURE_RESOURCE_NAME");
    const apiVersion = read("AZURE_API_VERSION");
    created.azure = {
      ...opts.overrides?.azure,
      ...(resourceName === undefined ? {} : { resourceName }),
      ...(apiVersion === undefined ? {} : { apiVersion }),
    };
  }
  return createChatModel(created);
}

function firstOf(keys: string[] | undefined, read: (key: string) => string | undefined): string | undefined {
  for (const key of keys ?? []) {
    const value = read(key);
    if (value !== undefined) return value;
  }
  return undefined;
}

function readNumber(key: string, read: (key: string) => string | undefined): number | undefined {
  const raw = read(key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw configError(key, `is "${raw}", not a number`);
  return value;
}

function configError(variable: string, problem: string): TrellisError {
  return new TrellisError("INVALID_CONFIG", `The environment variable ${variable} ${problem}.`, {
    details: { variable },
  });
}
