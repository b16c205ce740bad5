export {
  type CheckpointSaver,
  type Clock,
  CorruptCheckpointError,
  isTrellisErrorCode,
  LeaseError,
  ManualClock,
  MemorySaver,
  MemoryStore,
  type SearchItem,
  type Store,
  type StoreItem,
  systemClock,
  TRELLIS_ERROR_CODES,
  TrellisError,
  type TrellisErrorCode,
} from "@trellis/checkpoint";
export {
  type AnyChannel,
  type Channel,
  type ChannelKind,
  type ChannelOptions,
  channel,
  type MessageLike,
  normalizeRole,
  REMOVE_ALL_MESSAGES,
  type RemoveMessage,
  removeMessage,
} from "./channels/index.js";
export { END, START } from "./constants.js";
export {
  GraphRecursionError,
  GraphValidationError,
  InvalidRouteError,
  InvalidUpdateError,
  NodeTimeoutError,
  ResumeError,
  RunCancelledError,
} from "./errors.js";
export {
  CompiledGraph,
  type GraphInput,
  type InvokeResult,
  type RunResult,
  type StreamOptions,
} from "./graph/compiled-graph.js";
export type { GraphDrawing, Xray } from "./graph/draw.js";
export type { NodeOptions } from "./graph/spec.js";
export {
  type CompileOptions,
  type NodeFn,
  type NodeReturn,
  type Router,
  StateGraph,
  type StateGraphOptions,
} from "./graph/state-graph.js";
export { Command, type CommandInit, type Goto, GraphInterrupt, type Interrupt, Send } from "./runtime/command.js";
export type { Durability, RunConfig, RunUser } from "./runtime/config.js";
export type { RunEventStream } from "./runtime/event-stream.js";
export type { ForkOptions } from "./runtime/fork.js";
export {
  emitMessageChunk,
  getNodeContext,
  getStore,
  interrupt,
  isControlFlowSignal,
  isStreaming,
  type NodeContext,
  withScope,
} from "./runtime/node-context.js";
export {
  decidePausedInput,
  type PausedInputDecision,
  type PausedInputPolicy,
  pausedInputPolicyName,
} from "./runtime/paused-input.js";
export { bindResume, isResumeMap, type ResumeBinding } from "./runtime/resume.js";
export type { RetryPolicy } from "./runtime/retry.js";
export type { RouterContext } from "./runtime/route.js";
export type { RunOutcome } from "./runtime/run-loop.js";
export type { StateSnapshot, StateTask } from "./runtime/state-snapshot.js";
export type { DebugEvent, MessageChunkMeta, StreamEvent, StreamMode } from "./runtime/stream-events.js";
export { contextFromCarrier, currentTraceCarrier, type TraceCarrier } from "./runtime/tracing.js";
export {
  type CallReport,
  MODEL_USAGE_CHANNEL,
  type ModelPrices,
  type RunUsage,
  TOOL_CALL_CHANNEL,
  type TokenCounts,
  UsageTally,
  type UsageTallyOptions,
  withUsageTally,
} from "./runtime/usage.js";
export type { GraphSchemas } from "./schema/graph-schemas.js";
export type { JsonSchema, SchemaIssue, StandardSchemaV1 } from "./schema/standard-schema.js";
export type { StateOf, StateSchema, UpdateOf } from "./state.js";
