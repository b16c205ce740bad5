/**
 * Where the app keeps its data, which model it uses, and how it names requests — all from the
 * environment, with defaults that need no configuration.
 */
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { type ChatModel, chatModelFromEnv } from "@trellis/models";

/**
 * The environment variables the app reads.
 *
 * @example
 * const env: AppEnv = { INFRA_AGENT_DATA_DIR: "/var/lib/infra-agent" };
 */
export type AppEnv = Readonly<Record<string, string | undefined>>;

/**
 * The app's data directory: `INFRA_AGENT_DATA_DIR`, else `.trellis/infra-pipeline` under `cwd`.
 *
 * @example
 * resolveDataDir({}, "/repo"); // "/repo/.trellis/infra-pipeline"
 */
export function resolveDataDir(env: AppEnv, cwd: string): string {
  const configured = env.INFRA_AGENT_DATA_DIR?.trim();
  return configured ? resolve(cwd, configured) : join(cwd, ".trellis", "infra-pipeline");
}

/**
 * The SQLite checkpoint file: `INFRA_AGENT_DB` (a path or `:memory:`), else `checkpoints.sqlite` in the
 * data directory.
 *
 * @example
 * resolveDatabasePath({}, "/data"); // "/data/checkpoints.sqlite"
 */
export function resolveDatabasePath(env: AppEnv, dataDir: string): string {
  const configured = env.INFRA_AGENT_DB?.trim();
  if (configured === ":memory:") return configured;
  return configured ? resolve(dataDir, configured) : join(dataDir, "checkpoints.sqlite");
}

/**
 * The model that makes the agents LLM-backed: `INFRA_AGENT_MODEL_PROVIDER` / `INFRA_AGENT_MODEL` (and the
 * other `INFRA_AGENT_MODEL_*` variables), else the shared `TRELLIS_MODEL_*` ones; undefined (offline) when
 * neither names a provider.
 *
 * @example
 * modelFromEnv({ INFRA_AGENT_MODEL_PROVIDER: "openai", INFRA_AGENT_MODEL: "gpt-4o-mini", OPENAI_API_KEY: "…" });
 */
export function modelFromEnv(env: AppEnv): ChatModel | undefined {
  return chatModelFromEnv({ prefix: "INFRA_AGENT", env }) ?? chatModelFromEnv({ prefix: "TRELLIS", env });
}

/**
 * Makes request ids like `req-20250101-093000-1a2b3c`: sortable by time, unique by a random suffix.
 *
 * @example
 * const next = requestIdGenerator(() => Date.UTC(2025, 0, 1, 9, 30));
 * next(); // "req-20250101-093000-…"
 */
export function requestIdGenerator(now: () => number = Date.now): () => string {
  return () => {
    const stamp = new Date(now()).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
    return `req-${stamp}-${randomBytes(3).toString("hex")}`;
  };
}
