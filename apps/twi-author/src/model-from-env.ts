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
  return (
    chatModelFromEnv({ prefix: "TWI", env, ...extra }) ??
    chatModelFromEnv({ prefix: "TRELLIS", env, fallback: createOfflineTwiModel(), ...extra })
  );
}
