import { type ChatModel, type ChatModelFromEnvOptions, chatModelFromEnv } from "@trellis/models";
import { createOfflineTwiModel } from "./offline/offline-model.js";

/**
 * The model the environment configures, else the offline model.
 *
 * `TWI_MODEL_PROVIDER` (and `TWI_MODEL`, `TWI_MODEL_API_KEY`, `TWI_MODEL_BASE_URL`…) win; without them
 * the project-wide `TRELLIS_MODEL_*` variables apply; without either, the deterministic offline model.
 * The seed's production setup is Azure AI Foundry serving Mistral Large:
 *
 * ```sh
 * TWI_MODEL_PROVIDER=azure TWI_MODEL=mistral-large-latest AZURE_RESOURCE_NAME=my-foundry AZURE_API_KEY=…
 * # or Mistral's own API:
 * TWI_MODEL_PROVIDER=mistral TWI_MODEL=mistral-large-latest MISTRAL_API_KEY=…
 * ```
 *
 * @example
 * const model = twiModelFromEnv(process.env); // offline unless a provider is configured
 */
export function twiModelFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides?: ChatModelFromEnvOptions["overrides"],
): ChatModel {
  const extra = overrides ? { overrides } : {};
  const foundry = foundryInferenceModel("TWI", env, overrides) ?? foundryInferenceModel("TRELLIS", env, overrides);
  if (foundry) return foundry;
  return (
    chatModelFromEnv({ prefix: "TWI", env, ...extra }) ??
    chatModelFromEnv({ prefix: "TRELLIS", env, fallback: createOfflineTwiModel(), ...extra })
  );
}

/**
 * The API version the seed's client (`azure.ai.inference.ChatCompletionsClient`) sends to an Azure AI
 * Foundry model inference endpoint; `AZURE_API_VERSION` replaces it.
 */
export const FOUNDRY_INFERENCE_API_VERSION = "2024-05-01-preview";

/**
 * The seed's Azure AI Foundry setup: `<prefix>_MODEL_PROVIDER=azure` with a base URL that is a Foundry
 * model inference endpoint (`https://<resource>.services.ai.azure.com/models`). Requests go where the
 * seed's `ChatCompletionsClient` sends them — `POST <endpoint>/chat/completions?api-version=…` with the
 * `api-key` header — not to the Azure OpenAI route (`…/models/v1/chat/completions`) the `azure`
 * provider would build. Undefined for any other setup.
 *
 * @example
 * foundryInferenceModel("TWI", { TWI_MODEL_PROVIDER: "azure", TWI_MODEL: "mistral-large-latest",
 *   TWI_MODEL_BASE_URL: "https://my-foundry.services.ai.azure.com/models", AZURE_API_KEY: "…" });
 */
export function foundryInferenceModel(
  prefix: "TWI" | "TRELLIS",
  env: Readonly<Record<string, string | undefined>>,
  overrides?: ChatModelFromEnvOptions["overrides"],
): ChatModel | undefined {
  const read = (key: string) => env[key]?.trim() || undefined;
  if (read(`${prefix}_MODEL_PROVIDER`)?.toLowerCase() !== "azure") return undefined;
  const base = read(`${prefix}_MODEL_BASE_URL`) ?? read("AZURE_BASE_URL");
  let url: URL;
  try {
    url = new URL(base ?? "");
  } catch {
    return undefined;
  }
  if (!/\/models\/?$/.test(url.pathname)) return undefined;
  const apiKey = read(`${prefix}_MODEL_API_KEY`) ?? read("AZURE_API_KEY");
  const apiVersion = read("AZURE_API_VERSION") ?? FOUNDRY_INFERENCE_API_VERSION;
  const baseFetch = overrides?.fetch ?? globalThis.fetch;
  const withApiVersion: typeof fetch = (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (!target.searchParams.has("api-version")) target.searchParams.set("api-version", apiVersion);
    return baseFetch(input instanceof Request ? new Request(target, input) : target, init);
  };
  return chatModelFromEnv({
    prefix,
    env: {
      ...env,
      [`${prefix}_MODEL_PROVIDER`]: "openai-compatible",
      [`${prefix}_MODEL_BASE_URL`]: base?.replace(/\/+$/, ""),
      // the key goes in the api-key header, as the seed's client sends it
      [`${prefix}_MODEL_API_KEY`]: undefined,
    },
    overrides: {
      ...overrides,
      headers: { ...overrides?.headers, ...(apiKey ? { "api-key": apiKey } : {}) },
      fetch: withApiVersion,
    },
  });
}
