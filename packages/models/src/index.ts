export { AiSdkChatModel, type AiSdkChatModelOptions, type AiSdkLanguageModel } from "./ai-sdk-chat-model.js";
export {
  BaseChatModel,
  type ChatCallOptions,
  type ChatDelta,
  type ChatModel,
  type ChatRequest,
  type ChunkListener,
  type JsonSchema,
  type ToolChoice,
  type ToolDefinition,
} from "./chat-model.js";
export {
  type ContentPart,
  type FilePart,
  type ImagePart,
  type MessageContent,
  messageText,
  type TextPart,
} from "./content-parts.js";
export {
  type AiSdkEmbeddingModel,
  type EmbedTexts,
  type EmbedWithOptions,
  embedWith,
  hashedBagOfWords,
} from "./embeddings.js";
export { type ChatModelFromEnvOptions, chatModelFromEnv } from "./from-env.js";
export { type InvokeToolOptions, invokeTool, runTool, type ToolOutcome, toolOutputText } from "./invoke-tool.js";
export { deltasFromMessage, splitIntoWords } from "./message-deltas.js";
export {
  type AssistantMessage,
  type AssistantMessageOptions,
  assistantMessage,
  hasToolCalls,
  isAssistantMessage,
  isToolMessage,
  type Message,
  type MessageOptions,
  newMessageId,
  newToolCallId,
  type Role,
  type SystemMessage,
  systemMessage,
  type TokenUsage,
  type ToolCall,
  type ToolCallInput,
  type ToolMessage,
  type ToolMessageOptions,
  toolMessage,
  type UserMessage,
  userMessage,
} from "./messages.js";
export {
  ModelError,
  type ModelErrorCode,
  type ModelErrorContext,
  type ModelErrorDetails,
  parseRetryAfter,
  toModelError,
} from "./model-errors.js";
export {
  CAPTURE_CONTENT_ENV,
  MODEL_USAGE_CHANNEL,
  type ModelUsageReport,
  TOOL_CALL_CHANNEL,
  type ToolCallReport,
} from "./model-tracing.js";
export {
  InvalidMessageError,
  type MessageInput,
  type NormalizeOptions,
  normalizeMessage,
  normalizeMessages,
  parseToolArgs,
} from "./normalize-message.js";
export { conversationHash, estimateUsage, type OfflineReply, type RecordedCall } from "./offline-reply.js";
export { type CreateChatModelOptions, createChatModel, PROVIDER_NAMES, type ProviderName } from "./providers.js";
export { type RetryOptions, retryDelay, sleepOn } from "./retry.js";
export {
  type Rule,
  RuleChatModel,
  type RuleChatModelOptions,
  type RuleContext,
  type RuleReply,
} from "./rule-chat-model.js";
export { ScriptedChatModel, type ScriptedChatModelOptions, type ScriptedReply } from "./scripted-chat-model.js";
export { toAiToolChoice, toModelMessages, toToolSet } from "./to-model-messages.js";
export { type InjectState, type JsonToolSpec, type Tool, type ToolContext, tool, type ZodToolSpec } from "./tool.js";
