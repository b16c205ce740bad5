export {
  type AgentOutcome,
  type AgentState,
  agentStateSchema,
  REFERENCE_MESSAGE,
  systemPrompt,
  transcriptFromPrompt,
} from "./agent/agent-state.js";
export { buildConversationGraph, type ConversationGraphOptions, shouldContinue } from "./agent/conversation-graph.js";
export { DEFAULT_OPENAI_MODEL, modelFromEnv } from "./agent/model-from-env.js";
export { createOfflineMarketModel, type OfflinePlan, planFromMessages, planFromTurns } from "./agent/offline-model.js";
export { createQueryGraphDatabaseTool, QUERY_TOOL_NAME, type QueryToolOptions } from "./agent/query-tool.js";
export {
  type AgentQueryReply,
  type AgentReply,
  agentReply,
  type ExecuteAgentQueryOptions,
  executeAgentQuery,
  failedReply,
  NO_RESPONSE,
  type RunAgentOptions,
  runAgentWithTranscript,
} from "./agent/run-agent.js";
export { type MarketAssistantConfig, readConfig } from "./app-config.js";
export { type ChatRequest, type ChatServiceOptions, chat, type ServedTurns } from "./chat-service.js";
export {
  type CompanyDataset,
  type CompanyRecord,
  type FinancialRecord,
  type OwnershipRecord,
  SAMPLE_DATA_NOTICE,
  SAMPLE_DATASET,
  type SectorRecord,
} from "./companies/company-dataset.js";
export {
  type CompanyDirectory,
  CompanyGraph,
  type CompanyProfile,
  type CompanySummary,
  type OwnershipLink,
  type RankMetric,
  type SectorMetrics,
} from "./companies/company-graph.js";
export { type InstallOptions, installCompanyGraph } from "./companies/company-schema.js";
export { type EntityMention, type EntityMentions, findEntities } from "./companies/entity-matcher.js";
export { openPostgresDatabase, type PostgresDatabaseOptions } from "./database/postgres-database.js";
export type { SqlDatabase, SqlValue } from "./database/sql-database.js";
export { openSqliteDatabase } from "./database/sqlite-database.js";
export { type ChatRoutesOptions, createChatRoutes, MAX_MESSAGE_CHARS, THREAD_ID } from "./http/chat-routes.js";
export { consoleLogger, type Logger, recordingLogger } from "./logger.js";
export { createMarketAssistant, type MarketAssistant, type MarketAssistantOptions } from "./market-assistant.js";
export { planQuestion, type SupervisorTask, type TaskKind } from "./supervisor/question-plan.js";
export {
  buildSupervisorGraph,
  type Finding,
  runSupervisorQuery,
  type SupervisorQueryOptions,
  type SupervisorResult,
  supervisorSchema,
  type WorkerName,
} from "./supervisor/supervisor-graph.js";
export {
  type ChatMessage,
  type MessageMetadata,
  parseChatMessage,
  type TranscriptStore,
} from "./transcript/chat-message.js";
export { RedisTranscriptStore, type RedisTranscriptStoreOptions } from "./transcript/redis-transcript-store.js";
export { SqliteTranscriptStore, type SqliteTranscriptStoreOptions } from "./transcript/sqlite-transcript-store.js";
export {
  buildTranscript,
  formatTranscript,
  OMITTED_MARKER,
  parseTranscript,
  type TranscriptLimits,
  type TranscriptTurn,
} from "./transcript/transcript-format.js";
