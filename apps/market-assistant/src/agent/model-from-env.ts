import { type ChatModel, chatModelFromEnv } from "@trellis/models";

/** The seed's model. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/**
 * The model the environment configures, or `offline` when none is. Reads `MARKET_ASSISTANT_MODEL_*`
 * when `MARKET_ASSISTANT_MODEL_PROVIDER` is set, else the shared `TRELLIS_MODEL_*` variables. With
 * provider `openai` and no model named, the model is `gpt-4o-mini`, as in the seed.
 *
 * @example
 * modelFromEnv({ TRELLIS_MODEL_PROVIDER: "openai", OPENAI_API_KEY: "sk-…" }, offline).model; // "gpt-4o-mini"
 * modelFromEnv({}, offline) === offline; // true
 */
export function modelFromEnv(env: Readonly<Record<string, string | undefined>>, offline: ChatModel): ChatModel {
  const prefix = env.MARKET_ASSISTANT_MODEL_PROVIDER?.trim() ? "MARKET_ASSISTANT" : "TRELLIS";
  const provider = env[`${prefix}_MODEL_PROVIDER`]?.trim().toLowerCase();
  const named = env[`${prefix}_MODEL`]?.trim();
  const patched = provider === "openai" && !named ? { ...env, [`${prefix}_MODEL`]: DEFAULT_OPENAI_MODEL } : env;
  return chatModelFromEnv({ prefix, env: patched, fallback: offline });
}
