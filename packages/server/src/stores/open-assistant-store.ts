import { type CheckpointSaver, TrellisError } from "@trellis/checkpoint";
import { SqliteSaver } from "@trellis/checkpoint-sqlite";
import type pg from "pg";
import { AssistantRegistry } from "../assistants/assistant-registry.js";
import type { HostedGraph } from "../assistants/graph-registry.js";
import { importOptional } from "../operations/optional-module.js";
import type { Logger } from "../operations/worker-log.js";
import type { AssistantStore } from "./assistant-store.js";
import { SqliteAssistantStore } from "./sqlite/sqlite-assistant-store.js";

/**
 * The assistant store beside the server's saver: tables in its SQLite file, or in its Postgres schema
 * (through the saver's pool; the Postgres store loads only then, so a SQLite project never needs pg).
 *
 * @example
 * const store = await openAssistantStore(saver, { schema: "trellis" });
 */
export async function openAssistantStore(
  saver: CheckpointSaver,
  options: { schema?: string | undefined } = {},
): Promise<AssistantStore> {
  if (saver instanceof SqliteSaver) return new SqliteAssistantStore(saver.database);
  const pool = (saver as { pool?: pg.Pool }).pool;
  if (pool) {
    const { PostgresAssistantStore } = await importOptional(() => import("./postgres/postgres-assistant-store.js"), {
      feature: 'the "postgres" saver',
      packages: ["pg"],
    });
    const store = new PostgresAssistantStore({ pool, ...(options.schema ? { schema: options.schema } : {}) });
    await store.setup();
    return store;
  }
  throw new TrellisError("INVALID_CONFIG", "Assistants need the server's SQLite or Postgres saver.");
}

/**
 * The server's {@link AssistantRegistry}: opens the store beside the saver and writes the system
 * assistants of the served graphs; a user's assistant that held a graph's id is moved aside, with an
 * `assistant-moved-aside` warning on `log`.
 *
 * @example
 * const assistants = await openAssistants(saver, graphs, { authEnabled: false });
 */
export async function openAssistants(
  saver: CheckpointSaver,
  graphs: ReadonlyMap<string, HostedGraph>,
  options: { authEnabled: boolean; schema?: string | undefined; log?: Logger },
): Promise<AssistantRegistry> {
  const store = await openAssistantStore(saver, { schema: options.schema });
  const registry = new AssistantRegistry({ store, graphs, authEnabled: options.authEnabled });
  for (const moved of await registry.syncSystem()) {
    // a user's assistant held a graph id of trellis.json: the graph's now, the user's under the new id
    options.log?.({
      level: "warn",
      event: "assistant-moved-aside",
      assistantId: moved.metadata.moved_from,
      movedTo: moved.assistantId,
      owner: moved.owner,
      graphId: moved.graphId,
    });
  }
  return registry;
}
