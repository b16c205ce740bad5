/**
 * `@trellis/server/postgres`: the PostgreSQL run store, assistant store and cron store, for code that builds a server's parts itself.
 * A separate entry so that importing `@trellis/server` never loads `pg`: install
 * `@trellis/checkpoint-postgres` and `pg` only when you use PostgreSQL.
 *
 * @example
 * import { PostgresSaver } from "@trellis/checkpoint-postgres";
 * import { PostgresRunStore } from "@trellis/server/postgres";
 *
 * const saver = new PostgresSaver({ connectionString: process.env.DATABASE_URL });
 * const store = new PostgresRunStore({ pool: saver.pool });
 * await store.setup();
 */

export {
  PostgresAssistantStore,
  type PostgresAssistantStoreOptions,
} from "./stores/postgres/postgres-assistant-store.js";
export { PostgresCronStore } from "./stores/postgres/postgres-cron-store.js";
export {
  POSTGRES_SESSION_OPTIONS,
  PostgresRunStore,
  type PostgresRunStoreOptions,
} from "./stores/postgres/postgres-run-store.js";
