export { type AgentModels, agentModelsFromEnv } from "./agent-models.js";
export {
  AGENT_DEFINITIONS,
  AGENT_IDS,
  type AgentDefinition,
  type AgentId,
  DEFAULT_AGENT,
  VERIFY_THRESHOLDS,
} from "./agents/agent-definitions.js";
export { type AgentToolSources, getToolsForAgent } from "./agents/agent-tools.js";
export {
  buildInspectionGraph,
  type InspectionGraph,
  type InspectionGraphOptions,
  inspectionStateSchema,
} from "./agents/inspection-graph.js";
export {
  clarificationAnswer,
  INSPECTION_PAUSED_INPUT_POLICY,
} from "./agents/paused-input.js";
export {
  type ClarificationQuestion,
  type ClarificationRequest,
  formatQuestions,
  isClarificationRequest,
  requestClarification,
} from "./agents/request-clarification.js";
export {
  createUpdateUserSettingsTool,
  currentUserSettings,
  settingsKey,
  settingsLine,
  type UserSettings,
  UserSettingsStore,
} from "./agents/user-settings.js";
export { type InspectionRuntime, type InspectionRuntimeOptions, openInspectionRuntime } from "./in-process.js";
export {
  createInspectionReporter,
  dataDirFromEnv,
  type InspectionReporter,
  type InspectionReporterOptions,
} from "./inspection-reporter.js";
export {
  bundledMcpServer,
  type McpServerConfig,
  type McpServersConfig,
  mcpConfigFromEnv,
  parseMcpConfig,
} from "./mcp/mcp-config.js";
export {
  MCP_SERVER_NAMES,
  type McpRestartPolicy,
  type McpServerName,
  type McpServerState,
  type McpServerStatus,
  type McpServers,
  McpServerUnavailableError,
  mcpServerScript,
  type StartMcpServersOptions,
  startMcpServers,
} from "./mcp/mcp-servers.js";
export { type FieldAnswer, mapAnswers, splitResponse } from "./offline/answer-parsing.js";
export { createOfflineModels } from "./offline/offline-models.js";
export { consoleLogger, type Logger, recordingLogger, silentLogger } from "./orchestrator/logger.js";
export {
  ASSISTANT_ID,
  InspectionOrchestrator,
  type PendingClarification,
  type ProcessMessageOptions,
  type ThreadView,
  type TurnResult,
} from "./orchestrator/orchestrator.js";
