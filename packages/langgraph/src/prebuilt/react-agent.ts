import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type BaseMessage, isAIMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { CheckpointSaver, Store } from "@trellis/checkpoint";
import { END, START } from "@trellis/core";
import { Annotation, type AnnotationRoot, type StateDefinition } from "../annotation.js";
import type { CompiledStateGraph } from "../compiled-state-graph.js";
import type { LangGraphRunnableConfig } from "../config.js";
import { type Messages, messagesStateReducer } from "../messages-reducer.js";
import { StateGraph } from "../state-graph.js";
import { type ResponseFormat, structuredResponseNode } from "./structured-response.js";
import { type ToolLike, ToolNode } from "./tool-node.js";

/**
 * What `prompt` may be: a system text, a `SystemMessage`, a function of the state (and config) that
 * returns the messages to send, or a Runnable doing the same.
 *
 * @example
 * const prompt: Prompt = (state) => [new SystemMessage(`Today is ${state.today}`), ...state.messages];
 */
export type Prompt =
  | string
  | SystemMessage
  // biome-ignore lint/suspicious/noExplicitAny: a prompt reads the agent's state, whatever its schema.
  | ((state: any, config: LangGraphRunnableConfig) => BaseMessage[] | Promise<BaseMessage[]>)
  | Runnable;

/**
 * Options of {@link createReactAgent}, as LangGraph takes them.
 *
 * @example
 * createReactAgent({ llm: model, tools: [search], prompt: "Be brief.", checkpointer: new MemorySaver() });
 */
export interface CreateReactAgentParams {
  llm: BaseChatModel | Runnable;
  tools: ToolLike[] | ToolNode;
  prompt?: Prompt;
  /** LangGraph's older names for `prompt`. */
  stateModifier?: Prompt;
  messageModifier?: Prompt;
  stateSchema?: AnnotationRoot<StateDefinition>;
  checkpointer?: CheckpointSaver;
  checkpointSaver?: CheckpointSaver;
  store?: Store;
  interruptBefore?: Array<"agent" | "tools"> | "*";
  interruptAfter?: Array<"agent" | "tools"> | "*";
  /**
   * A zod schema (or JSON schema), or `{ schema, prompt, ...options }`: after the loop, the model
   * answers in it (through LangChain's `withStructuredOutput`) as `structuredResponse`.
   */
  responseFormat?: ResponseFormat;
  name?: string;
  description?: string;
}

/**
 * The state of a ReAct agent: `messages` and, with `responseFormat`, `structuredResponse`.
 *
 * @example
 * const State = Annotation.Root({ ...createReactAgentAnnotation().spec, userName: Annotation<string>() });
 */
export function createReactAgentAnnotation() {
  return Annotation.Root({
    messages: Annotation<BaseMessage[], Messages>({ reducer: messagesStateReducer, default: () => [] }),
    structuredResponse: Annotation<Record<string, unknown>>(),
  });
}

async function promptMessages(
  prompt: Prompt | undefined,
  state: { messages: BaseMessage[] },
  config: LangGraphRunnableConfig,
) {
  if (prompt === undefined) return state.messages;
  if (typeof prompt === "string") return [new SystemMessage(prompt), ...state.messages];
  if (prompt instanceof SystemMessage) return [prompt, ...state.messages];
  if (typeof prompt === "function") return prompt(state, config);
  return (await prompt.invoke(state, config)) as BaseMessage[];
}

/**
 * LangGraph's prebuilt ReAct agent: a model (its tools bound with `bindTools`) and a `ToolNode` in a
 * loop until the model answers without tool calls; then, with `responseFormat`, one more call for the
 * structured answer.
 *
 * @example
 * const agent = createReactAgent({ llm: new ChatOpenAI({ model: "gpt-4o-mini" }), tools: [weather], checkpointer: new MemorySaver() });
 * await agent.invoke({ messages: [new HumanMessage("Weather in Lima?")] }, { configurable: { thread_id: "t1" } });
 */
export function createReactAgent(params: CreateReactAgentParams): CompiledStateGraph {
  const toolNode = params.tools instanceof ToolNode ? params.tools : new ToolNode(params.tools);
  const tools = toolNode.tools;
  const llm = params.llm as BaseChatModel;
  const model: Runnable =
    tools.length > 0 && typeof llm.bindTools === "function" ? llm.bindTools(tools as never) : (params.llm as Runnable);
  const prompt = params.prompt ?? params.stateModifier ?? params.messageModifier;
  const schema = params.stateSchema ?? createReactAgentAnnotation();
  const structured = params.responseFormat !== undefined;

  const callModel = async (state: { messages: BaseMessage[] }, config: LangGraphRunnableConfig) => {
    const response = await model.invoke(await promptMessages(prompt, state, config), config);
    if (params.name !== undefined && response && typeof response === "object")
      (response as BaseMessage).name = params.name;
    return { messages: [response] };
  };
  const route = (state: { messages: BaseMessage[] }) => {
    const last = state.messages[state.messages.length - 1];
    if (last && isAIMessage(last) && (last.tool_calls?.length ?? 0) > 0) return "tools";
    return structured ? "generate_structured_response" : END;
  };
  const builder = new StateGraph({ stateSchema: schema }).addNode("agent", callModel).addEdge(START, "agent");
  if (tools.length > 0) {
    builder.addNode("tools", toolNode).addEdge("tools", "agent");
  }
  if (structured) {
    builder.addNode("generate_structured_response", structuredResponseNode(params.llm, params.responseFormat));
    builder.addEdge("generate_structured_response", END);
  }
  const targets = [...(tools.length > 0 ? ["tools"] : []), structured ? "generate_structured_response" : END];
  builder.addConditionalEdges("agent", route, targets);
  const checkpointer = params.checkpointer ?? params.checkpointSaver;
  return builder.compile({
    ...(checkpointer !== undefined ? { checkpointer } : {}),
    ...(params.store !== undefined ? { store: params.store } : {}),
    ...(params.interruptBefore !== undefined ? { interruptBefore: params.interruptBefore } : {}),
    ...(params.interruptAfter !== undefined ? { interruptAfter: params.interruptAfter } : {}),
    ...(params.name !== undefined ? { name: params.name } : {}),
    ...(params.description !== undefined ? { description: params.description } : {}),
  }) as unknown as CompiledStateGraph;
}
