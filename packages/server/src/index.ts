/**
 * `@trellis/server`: the Agent-Server-compatible HTTP server. It loads no database driver but SQLite's:
 * the PostgreSQL run store is in `@trellis/server/postgres` and the Redis fan-out in
 * `@trellis/server/redis`, and a config naming them loads them on demand.
 *
 * @example
 * import { createServer, loadConfig } from "@trellis/server";
 *
 * const server = await createServer(await loadConfig("trellis.json"));
 * const { url } = await server.listen();
 */
export { type AgUiEvent, AgUiTranslator, type JsonPatchOp, jsonPatch } from "./ag-ui/ag-ui-events.js";
export { refuseAgUiIdentity } from "./ag-ui/ag-ui-input.js";
export {
  type AssistantPrincipal,
  AssistantRegistry,
  type AssistantRegistryParts,
  assistantJson,
  assistantVersionJson,
  type NewAssistant,
  type ResolvedAssistant,
  systemAssistant,
  withAssistantConfig,
} from "./assistants/assistant-registry.js";
export {
  type AnyGraph,
  type AppRoutesContext,
  type AppUpgradeHandler,
  type HostedGraph,
  loadGraphs,
} from "./assistants/graph-registry.js";
export {
  type AuthConfig,
  type Credential,
  DEFAULT_SQLITE_PATH,
  type GraphEntry,
  type LimitsConfig,
  loadConfig,
  type QueueConfig,
  type ResolvedConfig,
  resolveConfig,
  type SaverConfig,
  type TrellisConfig,
  USER_LIMIT_DEFAULTS,
} from "./config/config.js";
export { type StoreConfig, storeOptionsOf } from "./config/store-config.js";
export { checkSchedule, checkTimezone, nextRunAfter } from "./crons/cron-schedule.js";
export {
  CronScheduler,
  type CronSchedulerOptions,
  type CronSchedulerParts,
  DEFAULT_CRON_POLL_MS,
  nextTick,
} from "./crons/cron-scheduler.js";
export { type Authenticate, authMiddleware, credentialAuth } from "./http/auth.js";
export { httpStatusOf } from "./http/http-status.js";
export type { ServerContext, ServerEnv, ThreadAccess } from "./http/server-context.js";
export { importOptional } from "./operations/optional-module.js";
export { rollbackRun } from "./runs/rollback.js";
export {
  identityConfigurable,
  RESERVED_CONFIGURABLE_KEYS,
  refuseReservedKeys,
  reservedKeys,
  runUser,
} from "./runs/run-identity.js";
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_ORPHAN_AFTER_MS,
  type QueueWake,
  RunManager,
  type RunManagerOptions,
} from "./runs/run-manager.js";
export {
  type DeletedThread,
  type RunEnd,
  type RunPrincipal,
  RunService,
  type RunServiceParts,
  type StartRun,
  type ThreadDataHook,
} from "./runs/run-service.js";
export type { WireTokenCounts, WireUsage } from "./runs/run-usage.js";
export { type CreateServerOptions, createServer, startServer, startWorker, type TrellisServer } from "./server.js";
export type {
  AssistantConfig,
  AssistantFilter,
  AssistantPatch,
  AssistantQuery,
  AssistantRecord,
  AssistantStore,
  AssistantVersionRecord,
} from "./stores/assistant-store.js";
export type { CronChanges, CronFilter, CronQuery, CronRecord, CronStore, OnRunCompleted } from "./stores/cron-store.js";
export { openAssistantStore, openAssistants } from "./stores/open-assistant-store.js";
export { openCronStore } from "./stores/open-cron-store.js";
export type {
  CancelAction,
  MultitaskStrategy,
  RunKwargs,
  RunRecord,
  RunStatus,
  RunStore,
  StoredEvent,
  ThreadRecord,
  ThreadStatus,
} from "./stores/run-store.js";
export { TERMINAL_RUN_STATUSES } from "./stores/run-store.js";
export { SqliteAssistantStore } from "./stores/sqlite/sqlite-assistant-store.js";
export { SqliteCronStore } from "./stores/sqlite/sqlite-cron-store.js";
export { type SqliteCommitCounts, SqliteRunStore } from "./stores/sqlite/sqlite-run-store.js";
export {
  credentialUsersOf,
  tooMany,
  type UserLimitName,
  UserLimits,
  type UserLimitsParts,
} from "./stores/user-limits.js";
export { storeFor, userLabel } from "./stores/user-store.js";
export { type EventHub, LocalEventHub, type RunListener } from "./streams/event-hub.js";
