import type { CheckpointSaver } from "@trellis/checkpoint";
import { type CompiledGraph, channel, END, emitMessageChunk, type NodeContext, START, StateGraph } from "@trellis/core";
import {
  type AssistantMessage,
  assistantMessage,
  type ChatModel,
  type Message,
  systemMessage,
  type Tool,
} from "@trellis/models";
import { closeDanglingCalls, frontendTools, openToolCalls } from "./frontend-tools.js";
import { createToolNode } from "./tool-node.js";
import type { InterruptOn } from "./tool-review.js";
import { toolsCondition } from "./tools-condition.js";

/**
 * The state of a ReAct agent: the conversation.
 *
 * @example
 * const builder = new StateGraph(reactAgentSchema)
 *   .addNode("agent", createReactAgent({ model, tools }))
 *   .addEdge(START, "agent");
 */
export const reactAgentSchema = { messages: channel.messages<Message>() };

/**
 * Options of {@link createReactAgent}.
 *
 * @example
 * const options: ReactAgentOptions = {
 *   model,
 *   tools: [search, sendEmail],
 *   prompt: "Answer briefly.",
 *   maxIterations: 5,
 *   interruptOn: { send_email: true },
 *   checkpointer: new MemorySaver(),
 * };
 * const agent = createReactAgent(options);
 */
export interface ReactAgentOptions {
  model: ChatModel;
  tools: readonly Tool[];
  /** A system prompt, or a function building the messages sent to the model from the state. */
  prompt?: string | ((messages: readonly Message[]) => readonly Message[]);
  /**
   * Most model turns after the last user message. When reached, the agent stops calling tools and
   * answers with a message that says it stopped early. Default 10.
   */
  maxIterations?: number;
  checkpointer?: CheckpointSaver;
  /** The graph's name. Default "agent". */
  name?: string;
  /** Model temperature. */
  temperature?: number;
  /** Tools whose calls wait for a person's decision before they run (see `ToolNodeOptions.interruptOn`). */
  interruptOn?: InterruptOn;
}

/**
 * A tool-calling agent in one call: `agent` asks the model, `tools` runs the tool calls, and the loop
 * goes on until the model answers without tool calls or `maxIterations` is reached. The model call is a
 * durable step, and its tokens go to the `messages` stream mode.
 *
 * Frontend tools: the run's config may declare tools the client executes (`withFrontendTools`, what
 * the server's AG-UI endpoint does with `RunAgentInput.tools`). The model is offered them next to
 * `tools`; a call to one is not run here: once the agent's own calls of that turn have run, the run
 * ends with the call open. The next run brings its result (a tool message) as input, and the loop goes
 * on from the model with it. A frontend tool named like one of `tools` fails the turn with a
 * `FrontendToolError`.
 *
 * @example
 * const agent = createReactAgent({ model, tools: [search], prompt: "Answer briefly.", checkpointer });
 * const out = await agent.invoke({ messages: [userMessage("Who owns Acme?")] }, { threadId });
 */
export function createReactAgent(options: ReactAgentOptions): CompiledGraph<typeof reactAgentSchema> {
  const { model, tools } = options;
  const maxIterations = options.maxIterations ?? 10;
  const definitions = tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const agent = async (state: { messages: Message[] }, ctx: NodeContext) => {
    const offered = [...definitions, ...frontendTools(ctx.config, tools)];
    const turns = turnsSinceUser(state.messages);
    if (turns >= maxIterations) return { messages: [stoppedEarly(state.messages, maxIterations)] };
    // a call left without a result while the conversation went on gets a stand-in (not stored)
    const input = buildPrompt(options.prompt, closeDanglingCalls(state.messages));
    const reply = await ctx.step("model", () =>
      model.invoke(input, {
        ...(offered.length > 0 ? { tools: offered } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        signal: ctx.signal,
        onChunk: (delta) => emitMessageChunk(delta),
      }),
    );
    return { messages: [reply] };
  };
  return (
    new StateGraph(reactAgentSchema, { name: options.name ?? "agent" })
      .addNode("agent", agent)
      .addNode("tools", createToolNode(tools, options.interruptOn ? { interruptOn: options.interruptOn } : {}))
      .addEdge(START, "agent")
      .addConditionalEdges("agent", toolsCondition, ["tools", END])
      // calls left open after the tools ran are the client's (frontend tools): the run ends and waits
      .addConditionalEdges("tools", (s) => (openToolCalls(s.messages).length > 0 ? END : "agent"), ["agent", END])
      .compile(options.checkpointer ? { checkpointer: options.checkpointer } : {})
  );
}

function buildPrompt(prompt: ReactAgentOptions["prompt"], messages: readonly Message[]): readonly Message[] {
  if (prompt === undefined) return messages;
  if (typeof prompt === "function") return prompt(messages);
  return [systemMessage(prompt), ...messages];
}

/** Model turns since the last user message. */
function turnsSinceUser(messages: readonly Message[]): number {
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "user") break;
    if (m.role === "assistant") turns++;
  }
  return turns;
}

function stoppedEarly(messages: readonly Message[], max: number): AssistantMessage {
  const lastText = [...messages]
    .reverse()
    .find((m) => (m.role === "tool" || m.role === "assistant") && typeof m.content === "string" && m.content.trim());
  const partial = lastText ? ` What I found so far: ${String(lastText.content).slice(0, 2000)}` : "";
  return assistantMessage(
    `I stopped after ${max} tool rounds without a complete answer, so this answer may be partial.${partial}`,
  );
}
