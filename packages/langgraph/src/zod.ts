export {
  MessagesZodMeta,
  MessagesZodState,
  registry,
  SchemaMetaRegistry,
  withLangGraph,
  type ZodMeta,
} from "./zod-state.js";
