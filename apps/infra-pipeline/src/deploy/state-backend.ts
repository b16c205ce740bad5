/**
 * Where the local target keeps Terraform's state: one state per environment, shared by every request,
 * so a create, a later update and a later delete (three conversations) act on what was deployed. The
 * default is a local state file under the data directory; `INFRA_AGENT_TF_STATE=pg` puts it in
 * Terraform's own `pg` backend on the project's PostgreSQL (one schema per environment).
 */
import { join } from "node:path";
import type { Environment } from "../contracts.js";

/**
 * The configured state backend.
 *
 * @example
 * const s: StateBackend = { kind: "pg", connStr: "postgres://127.0.0.1:5432/test?sslmode=disable", schemaPrefix: "infra_pipeline" };
 */
export type StateBackend =
  | { kind: "local"; dir?: string | undefined }
  | { kind: "pg"; connStr: string; schemaPrefix: string };

/**
 * Reads the state backend from the environment: `INFRA_AGENT_TF_STATE` = `local` (default; files under
 * `INFRA_AGENT_TF_STATE_DIR`, else `<data dir>/tfstate`) or `pg` (`INFRA_AGENT_TF_STATE_PG`, else
 * `TRELLIS_DATABASE_URL`; schemas `<INFRA_AGENT_TF_STATE_PG_SCHEMA or infra_pipeline>_<env>`). Returns
 * why not when the setting is unusable.
 *
 * @example
 * stateBackendFromEnv({ INFRA_AGENT_TF_STATE: "pg", TRELLIS_DATABASE_URL: "postgres://…" }); // { backend: { kind: "pg", … } }
 */
export function stateBackendFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): { backend: StateBackend; reason?: undefined } | { backend?: undefined; reason: string } {
  const kind = (env.INFRA_AGENT_TF_STATE ?? "").trim().toLowerCase() || "local";
  if (kind === "local") {
    const dir = env.INFRA_AGENT_TF_STATE_DIR?.trim();
    return { backend: { kind: "local", ...(dir ? { dir } : {}) } };
  }
  if (kind !== "pg")
    return { reason: `INFRA_AGENT_TF_STATE is "${kind}": use local (a state file) or pg (PostgreSQL)` };
  const connStr = (env.INFRA_AGENT_TF_STATE_PG ?? env.TRELLIS_DATABASE_URL ?? "").trim();
  if (connStr === "") {
    return {
      reason: "INFRA_AGENT_TF_STATE is pg, but neither INFRA_AGENT_TF_STATE_PG nor TRELLIS_DATABASE_URL is set",
    };
  }
  const schemaPrefix = (env.INFRA_AGENT_TF_STATE_PG_SCHEMA ?? "").trim() || "infra_pipeline";
  if (!/^[a-z_][a-z0-9_]*$/.test(schemaPrefix)) {
    return { reason: `INFRA_AGENT_TF_STATE_PG_SCHEMA is "${schemaPrefix}": use lowercase letters, digits and "_"` };
  }
  return { backend: { kind: "pg", connStr, schemaPrefix } };
}

/**
 * The `terraform { backend … }` block (JSON syntax) of an environment's state.
 *
 * @example
 * backendBlock({ kind: "local" }, "dev", "/data/tfstate"); // { terraform: { backend: { local: { path: "/data/tfstate/dev.tfstate" } } } }
 */
export function backendBlock(backend: StateBackend, environment: Environment, defaultDir: string): unknown {
  if (backend.kind === "pg") {
    return {
      terraform: {
        backend: { pg: { conn_str: backend.connStr, schema_name: `${backend.schemaPrefix}_${environment}` } },
      },
    };
  }
  return { terraform: { backend: { local: { path: join(backend.dir ?? defaultDir, `${environment}.tfstate`) } } } };
}
