import { type AIMessage, type BaseMessage, isAIMessage, isBaseMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { Command, END, getNodeContext, isControlFlowSignal, withScope } from "@trellis/core";
import { getConfig, type LangGraphRunnableConfig } from "../config.js";

/**
 * A tool the node can run: a LangChain tool (`tool(fn, { name, schema })`, a `StructuredTool`) or
 * anything with a `name` and `invoke(toolCall, config)`.
 *
 * @example
 * const tools: ToolLike[] = [tool(({ city }) => `Sunny in ${city}`, { name: "weather", schema: z.object({ city: z.string() }) })];
 */
export type ToolLike =
  | StructuredToolInterface
  | { name: string; invoke: (input: unknown, config?: unknown) => unknown };

/**
 * Options of {@link ToolNode}.
 *
 * @example
 * new ToolNode(tools, { handleToolErrors: false });
 */
export interface ToolNodeOptions {
  name?: string;
  tags?: string[];
  /** Answer a failing tool with an error `ToolMessage` (default) instead of failing the node. */
  handleToolErrors?: boolean;
}

type ToolCall = { id?: string; name: string; args: Record<string, unknown> };

function isMessagesState(input: unknown): input is { messages: BaseMessage[] } {
  return typeof input === "object" && input !== null && Array.isArray((input as { messages?: unknown }).messages);
}

/**
 * Runs the tool calls of the last AI message, in parallel, and answers each with a `ToolMessage`: a
 * tool's error becomes an error `ToolMessage` the model can read, a tool may return a `Command`, and
 * `interrupt()` inside a tool pauses the run (each parallel call with its own interrupt id).
 *
 * @example
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode("agent", callModel)
 *   .addNode("tools", new ToolNode([searchTool]))
 *   .addEdge(START, "agent")
 *   .addConditionalEdges("agent", toolsCondition)
 *   .addEdge("tools", "agent")
 *   .compile();
 */
export class ToolNode {
  readonly tools: ToolLike[];
  readonly name: string;
  readonly tags: string[];
  handleToolErrors: boolean;
  readonly #byName: Map<string, ToolLike>;

  constructor(tools: ToolLike[], options: ToolNodeOptions = {}) {
    this.tools = tools;
    this.name = options.name ?? "tools";
    this.tags = options.tags ?? [];
    this.handleToolErrors = options.handleToolErrors ?? true;
    this.#byName = new Map(tools.map((t) => [t.name, t]));
  }

  async #runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): Promise<unknown> {
    const tool = this.#byName.get(call.name);
    try {
      if (!tool) throw new Error(`Tool "${call.name}" not found.`);
      const runtime = Object.assign({}, config, {
        state,
        toolCallId: call.id ?? "",
        config,
        store: config.store ?? null,
      });
      const output = await tool.invoke(Object.assign({}, call, { type: "tool_call" as const }), runtime);
      if ((isBaseMessage(output) && output.getType() === "tool") || output instanceof Command) return output;
      return new ToolMessage({
        status: "success",
        name: tool.name,
        content: typeof output === "string" ? output : JSON.stringify(output),
        tool_call_id: call.id ?? "",
      });
    } catch (error) {
      if (!this.handleToolErrors || isControlFlowSignal(error)) throw error;
      return new ToolMessage({
        status: "error",
        content: `Error: ${(error as Error).message}\n Please fix your mistakes.`,
        name: call.name,
        tool_call_id: call.id ?? "",
      });
    }
  }

  /** Runs the tool calls of `input` (`{ messages }`, a list of messages, or a Send's `{ lg_tool_call }`). */
  async invoke(input: unknown, config?: LangGraphRunnableConfig): Promise<unknown> {
    const cfg = config ?? getConfig();
    let outputs: unknown[];
    const send = input as { lg_tool_call?: ToolCall } | null;
    if (send && typeof send === "object" && send.lg_tool_call) {
      const { lg_tool_call: call, ...state } = send as { lg_tool_call: ToolCall };
      outputs = [await this.#runTool(call, cfg, state)];
    } else {
      const messages = Array.isArray(input)
        ? (input as BaseMessage[])
        : isMessagesState(input)
          ? input.messages
          : undefined;
      if (!messages) throw new Error("ToolNode only accepts BaseMessage[] or { messages: BaseMessage[] } as input.");
      const answered = new Set(
        messages.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id),
      );
      const ai = [...messages].reverse().find((m) => isAIMessage(m)) as AIMessage | undefined;
      if (!ai) throw new Error("ToolNode only accepts AIMessages as input.");
      const calls = (ai.tool_calls ?? []).filter((c) => c.id == null || !answered.has(c.id));
      outputs = await Promise.all(
        calls.map((call) => scoped(call.id ?? call.name, () => this.#runTool(call as ToolCall, cfg, input))),
      );
    }
    if (!outputs.some((o) => o instanceof Command)) return Array.isArray(input) ? outputs : { messages: outputs };
    return outputs.map((o) => (o instanceof Command ? o : Array.isArray(input) ? [o] : { messages: [o] }));
  }
}

/** Inside a node, numbers the call's interrupts apart (parallel calls resume each with its own answer). */
function scoped<T>(key: string, fn: () => T): T {
  try {
    getNodeContext();
  } catch {
    return fn();
  }
  return withScope(key, fn);
}

/**
 * Routes to `"tools"` when the last message asks for tool calls, else to END.
 *
 * @example
 * builder.addConditionalEdges("agent", toolsCondition, ["tools", END]);
 */
export function toolsCondition(state: BaseMessage[] | { messages: BaseMessage[] }): "tools" | typeof END {
  const messages = Array.isArray(state) ? state : state.messages;
  const last = messages[messages.length - 1] as AIMessage | undefined;
  return last && "tool_calls" in last && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
}
