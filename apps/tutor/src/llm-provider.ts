import { TrellisError } from "@trellis/checkpoint";
import { type ChatModel, createChatModel } from "@trellis/models";

/**
 * The seed's `llm_provider` values, plus `offline` (the default here: no key, no network).
 *
 * @example
 * const provider: LlmProvider = "mistral";
 */
export type LlmProvider = "vllm" | "gemini" | "mistral" | "offline";

/**
 * The seed's `GraphAgent.__init__` model settings, in camelCase.
 *
 * @example
 * const settings: LlmSettings = { llmProvider: "vllm", vllmPort: "8000", modelDir: "Qwen/Qwen2.5-7B-Instruct" };
 */
export interface LlmSettings {
  llmProvider?: LlmProvider;
  /** Port of the local vLLM server (`http://localhost:<port>/v1`). */
  vllmPort?: string;
  /** Full API root of the vLLM server; wins over `vllmPort`. */
  vllmUrl?: string;
  /** The model vLLM serves (the seed's `model_dir`). */
  modelDir?: string;
  /** Key sent to vLLM; the seed's default is "EMPTY". */
  openaiApiKey?: string;
  geminiApiKey?: string;
  geminiModel?: string;
  geminiUrl?: string;
  mistralApiKey?: string;
  mistralModel?: string;
  mistralUrl?: string;
  /** Default 0.1, as in the seed. */
  temperature?: number;
  /** Timeout of one model call. Default 120,000 ms. */
  timeoutMs?: number;
}

const DEFAULT_GEMINI_MODEL = "gemini-2.0-flash";
const DEFAULT_MISTRAL_MODEL = "mistral-small-latest";

/**
 * Reads the model settings from the environment, with the seed's setting names: `LLM_PROVIDER` (or
 * `TUTOR_LLM_PROVIDER`, which wins), `VLLM_PORT`, `VLLM_URL`, `MODEL_DIR`, `OPENAI_API_KEY`,
 * `GEMINI_API_KEY`, `GEMINI_MODEL`, `GEMINI_BASE_URL`, `MISTRAL_API_KEY`, `MISTRAL_MODEL`,
 * `MISTRAL_BASE_URL`, `LLM_TEMPERATURE`, `LLM_TIMEOUT_MS`.
 *
 * @example
 * const settings = llmSettingsFromEnv({ LLM_PROVIDER: "gemini", GEMINI_API_KEY: "…" });
 */
export function llmSettingsFromEnv(env: Record<string, string | undefined> = process.env): LlmSettings {
  const provider = (env.TUTOR_LLM_PROVIDER || env.LLM_PROVIDER || "offline").toLowerCase();
  if (!["vllm", "gemini", "mistral", "offline"].includes(provider)) {
    throw new TrellisError(
      "INVALID_CONFIG",
      `LLM_PROVIDER must be vllm, gemini, mistral or offline; got "${provider}".`,
    );
  }
  const settings: LlmSettings = { llmProvider: provider as LlmProvider };
  const copy = (key: keyof LlmSettings, name: string) => {
    const value = env[name];
    if (value !== undefined && value !== "") (settings as Record<string, unknown>)[key] = value;
  };
  copy("vllmPort", "VLLM_PORT");
  copy("vllmUrl", "VLLM_URL");
  copy("modelDir", "MODEL_DIR");
  copy("openaiApiKey", "OPENAI_API_KEY");
  copy("geminiApiKey", "GEMINI_API_KEY");
  copy("geminiModel", "GEMINI_MODEL");
  copy("geminiUrl", "GEMINI_BASE_URL");
  copy("mistralApiKey", "MISTRAL_API_KEY");
  copy("mistralModel", "MISTRAL_MODEL");
  copy("mistralUrl", "MISTRAL_BASE_URL");
  const number = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === "") return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new TrellisError("INVALID_CONFIG", `${name} must be a number; got "${raw}".`);
    return value;
  };
  const temperature = number("LLM_TEMPERATURE");
  const timeoutMs = number("LLM_TIMEOUT_MS");
  if (temperature !== undefined) settings.temperature = temperature;
  if (timeoutMs !== undefined) settings.timeoutMs = timeoutMs;
  return settings;
}

/**
 * The seed's `_get_llm`: a Gemini, Mistral or vLLM (OpenAI-compatible) model through
 * `@trellis/models`, or undefined for the offline tutor. Missing settings are `INVALID_CONFIG` errors
 * naming the variable.
 *
 * @example
 * const llm = createTutorLlm({ llmProvider: "vllm", vllmPort: "8000", modelDir: "Qwen/Qwen2.5-7B-Instruct" });
 * llm?.provider; // "vllm"
 */
export function createTutorLlm(settings: LlmSettings): ChatModel | undefined {
  const provider = settings.llmProvider ?? "offline";
  const temperature = settings.temperature ?? 0.1;
  const common = { temperature, ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}) };
  const need = (value: string | undefined, name: string): string => {
    if (!value) throw new TrellisError("INVALID_CONFIG", `LLM_PROVIDER=${provider} needs ${name}.`);
    return value;
  };
  if (provider === "gemini") {
    return createChatModel({
      provider: "google",
      model: settings.geminiModel ?? DEFAULT_GEMINI_MODEL,
      apiKey: need(settings.geminiApiKey, "GEMINI_API_KEY"),
      ...(settings.geminiUrl ? { baseURL: settings.geminiUrl } : {}),
      ...common,
    });
  }
  if (provider === "mistral") {
    return createChatModel({
      provider: "mistral",
      model: settings.mistralModel ?? DEFAULT_MISTRAL_MODEL,
      apiKey: need(settings.mistralApiKey, "MISTRAL_API_KEY"),
      ...(settings.mistralUrl ? { baseURL: settings.mistralUrl } : {}),
      ...common,
    });
  }
  if (provider === "vllm") {
    const baseURL = settings.vllmUrl ?? `http://localhost:${settings.vllmPort ?? "8000"}/v1`;
    return createChatModel({
      provider: "vllm",
      model: need(settings.modelDir, "MODEL_DIR (the model vLLM serves)"),
      apiKey: settings.openaiApiKey ?? "EMPTY",
      baseURL,
      ...common,
    });
  }
  return undefined;
}
