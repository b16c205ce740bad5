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
export { type AgUiEvent, AgUiTranslator, type JsonPatchOp, jsonPatch } from "./ag-ui-events.js";
export { refuseAgUiIdentity } from "./ag-ui-input.js";
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
} from "./assistant-registry.js";
export type {
  AssistantConfig,
  AssistantFilter,
  AssistantPatch,
  AssistantQuery,
  AssistantRecord,
  AssistantStore,
  AssistantVersionRecord,
} from "./assistant-store.js";
export { type Authenticate, authMiddleware, credentialAuth } from "./auth.js";
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
} from "./config.js";
export { checkSchedule, checkTimezone, nextRunAfter } from "./cron-schedule.js";
export {
  CronScheduler,
  type CronSchedulerOptions,
  type CronSchedulerParts,
  DEFAULT_CRON_POLL_MS,
  nextTick,
} from "./cron-scheduler.js";
export type { CronChanges, CronFilter, CronQuery, CronRecord, CronStore, OnRunCompleted } from "./cron-store.js";
export { type EventHub, LocalEventHub, type RunListener } from "./event-hub.js";
export {
  type AnyGraph,
  type AppRoutesContext,
  type AppUpgradeHandler,
  type HostedGraph,
  loadGraphs,
} from "./graph-registry.js";
export { httpStatusOf } from "./http-status.js";
export { openAssistantStore, openAssistants } from "./open-assistant-store.js";
export { openCronStore } from "./open-cron-store.js";
export { importOptional } from "./optional-module.js";
export { rollbackRun } from "./rollback.js";
export {
  identityConfigurable,
  RESERVED_CONFIGURABLE_KEYS,
  refuseReservedKeys,
  reservedKeys,
  runUser,
} from "./run-identity.js";
export {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_ORPHAN_AFTER_MS,
  type QueueWake,
  RunManager,
  type RunManagerOptions,
} from "./run-manager.js";
export {
  type DeletedThread,
  type RunEnd,
  type RunPrincipal,
  RunService,
  type RunServiceParts,
  type StartRun,
  type ThreadDataHook,
} from "./run-service.js";
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
} from "./run-store.js";
export { TERMINAL_RUN_STATUSES } from "./run-store.js";
export type { WireTokenCounts, WireUsage } from "./run-usage.js";
export { type CreateServerOptions, createServer, startServer, startWorker, type TrellisServer } from "./server.js";
export type { ServerContext, ServerEnv, ThreadAccess } from "./server-context.js";
export { SqliteAssistantStore } from "./sqlite-assistant-store.js";
export { SqliteCronStore } from "./sqlite-cron-store.js";
export { type SqliteCommitCounts, SqliteRunStore } from "./sqlite-run-store.js";
export { type StoreConfig, storeOptionsOf } from "./store-config.js";
export { credentialUsersOf, tooMany, type UserLimitName, UserLimits, type UserLimitsParts } from "./user-limits.js";
export { storeFor, userLabel } from "./user-store.js";
