export { RemoveMessage } from "@langchain/core/messages";
export type { CheckpointSaver as BaseCheckpointSaver } from "@trellis/checkpoint";
export { END, MemorySaver, START } from "@trellis/core";
export {
  Annotation,
  AnnotationRoot,
  BaseChannel,
  BinaryOperatorAggregate,
  LastValue,
  MessagesAnnotation,
  type SingleReducer,
  type StateDefinition,
  type StateType,
  type UpdateType,
} from "./annotation.js";
export { Command, isCommand, Send } from "./command.js";
export { CompiledStateGraph, type DrawableGraph } from "./compiled-state-graph.js";
export { getConfig, getCurrentTaskInput, getStore, getWriter, type LangGraphRunnableConfig } from "./config.js";
export {
  BaseLangGraphError,
  EmptyInputError,
  GraphInterrupt,
  GraphRecursionError,
  GraphValueError,
  InvalidUpdateError,
  isGraphBubbleUp,
  isGraphInterrupt,
  NodeTimeoutError,
  TrellisError,
} from "./errors.js";
export { type EntrypointOptions, entrypoint, getPreviousState, task } from "./functional.js";
export { interrupt } from "./interrupt.js";
export { addMessages, type Messages, messagesStateReducer, REMOVE_ALL_MESSAGES } from "./messages-reducer.js";
export type { NodeAction } from "./node-adapter.js";
export type {
  LangGraphInterrupt as Interrupt,
  PregelTaskDescription,
  StateSnapshot,
} from "./snapshot-shapes.js";
export { type AddNodeOptions, type CompileOptions, StateGraph, type StateInput } from "./state-graph.js";
export { BaseStore, InMemoryStore, type Item, type Operation } from "./store.js";
export type { StreamEvent } from "./stream-events-v2.js";
export type { LangGraphStreamMode as StreamMode, LangGraphStreamOptions } from "./stream-shapes.js";
export { MessagesZodMeta, MessagesZodState } from "./zod-state.js";
