export type { AuditEntry, AuditRow, AuditStore } from "./audit/audit-store.js";
export { PostgresAuditStore, type PostgresAuditStoreOptions } from "./audit/postgres-audit-store.js";
export { SqliteAuditStore, type SqliteAuditStoreOptions } from "./audit/sqlite-audit-store.js";
export { BackgroundTasks } from "./channels/background-tasks.js";
export { BotConnectorClient, type OutgoingActivity } from "./channels/teams/bot-connector-client.js";
export {
  type AuthResult,
  BotFrameworkAuth,
  type BotFrameworkAuthOptions,
} from "./channels/teams/bot-framework-auth.js";
export type { CardSubmitData, TeamsActivity } from "./channels/teams/teams-activity.js";
export { TeamsBot, teamsConversationId } from "./channels/teams/teams-bot.js";
export { type AdaptiveCard, finalApprovalCard, reviewCard } from "./channels/teams/teams-cards.js";
export { keyboardFor, TelegramBot, telegramConversationId } from "./channels/telegram/telegram-bot.js";
export { TelegramClient } from "./channels/telegram/telegram-client.js";
export type { TelegramCallbackQuery, TelegramMessage, TelegramUpdate } from "./channels/telegram/telegram-types.js";
export { createTwiRoutes, type TwiRoutesOptions } from "./channels/twi-routes.js";
export { TEXT, viewText } from "./channels/view-text.js";
export { loadTwiConfig, type TeamsConfig, type TelegramConfig, type TwiConfig } from "./config.js";
export { createTwiApp, type TwiApp, type TwiAppOptions } from "./create-twi-app.js";
export { DecisionError, type ReviewDecision, resumeUpdate } from "./decisions.js";
export {
  afterReview,
  afterRevision,
  type BuildGraphOptions,
  buildTwiGraph,
  routeIntent,
  type TwiGraph,
  type TwiServices,
} from "./graph.js";
export { twiModelFromEnv } from "./model-from-env.js";
export { pdfBlobName, withAiLabel } from "./nodes.js";
export { createOfflineTwiModel, OFFLINE_MODEL_ID } from "./offline/offline-model.js";
export { HtmlPdfRenderer, type PdfMetadata, type PdfRenderer } from "./pdf/twi-pdf-renderer.js";
export { GENERATE_CALL, INTENT_CALL, parseIntent } from "./prompts.js";
export { openTwiServer, type TwiServerOptions } from "./runtime/in-process-server.js";
export { twiAuthorGraph, twiAuthorRoutes, twiAuthorTasks } from "./server-entry.js";
export {
  type AgentState,
  AI_LABEL,
  agentStateSchema,
  type ConversationStart,
  type DraftMetadata,
  INTENTS,
  type Intent,
  initialState,
  MAX_REVISIONS,
  type TwiStatus,
} from "./state.js";
export type { BlobStorage, StoredBlob } from "./storage/blob-storage.js";
export { FsBlobStorage, type FsBlobStorageOptions } from "./storage/fs-blob-storage.js";
export { DEFAULT_URL_TTL_MS, UrlSigner, type UrlSignerOptions } from "./storage/url-signer.js";
export {
  type ConversationView,
  type DecideOptions,
  PAUSE_TAG_LENGTH,
  pauseTag,
  startRunId,
  TWI_ASSISTANT_ID,
  TwiAssistant,
  type TwiAssistantOptions,
} from "./twi-assistant.js";
export { parseTwiText, renderTwiText, type TwiDocument, type TwiStep } from "./twi-document.js";
