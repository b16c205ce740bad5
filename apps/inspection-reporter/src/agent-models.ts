import { type ChatModel, chatModelFromEnv } from "@trellis/models";
import { AGENT_IDS, type AgentId } from "./agents/agent-definitions.js";
import { createOfflineModels } from "./offline/offline-models.js";

/** The model of each agent, and a label saying where they come from. */
export interface AgentModels {
  models: Record<AgentId, ChatModel>;
  /** `offline` (the Dutch rule models) or `<provider>/<model>`. */
  label: string;
}

/**
 * The agents' models from the environment: `INSPECTION_MODEL_PROVIDER` (and `INSPECTION_MODEL`,
 * `INSPECTION_MODEL_API_KEY`…), else `TRELLIS_MODEL_PROVIDER` (and `TRELLIS_MODEL`…), gives all four
 * agents one provider model; with neither set, each agent gets its deterministic offline rule model.
 * A provider variable that is set but unusable throws `INVALID_CONFIG`.
 *
 * @example
 * agentModelsFromEnv({}).label; // "offline"
 * agentModelsFromEnv({ TRELLIS_MODEL_PROVIDER: "openai", TRELLIS_MODEL: "gpt-4o-mini", OPENAI_API_KEY: "sk-…" }).label; // "openai/gpt-4o-mini"
 */
export function agentModelsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AgentModels {
  const provider = chatModelFromEnv({ prefix: "INSPECTION", env }) ?? chatModelFromEnv({ prefix: "TRELLIS", env });
  if (!provider) return { models: createOfflineModels(), label: "offline" };
  const models = Object.fromEntries(AGENT_IDS.map((id) => [id, provider])) as Record<AgentId, ChatModel>;
  return { models, label: `${provider.provider}/${provider.model}` };
}
