import { type RunConfig, TrellisError } from "@trellis/core";
import type { AssistantMessage, JsonSchema, Message, ToolCall, ToolDefinition } from "@trellis/models";

/**
 * The `configurable` key of a run's config that holds its frontend tools: tool declarations the client
 * (an AG-UI frontend) executes itself. The Trellis server's AG-UI endpoint puts `RunAgentInput.tools`
 * there.
 *
 * @example
 * const frontendTools = [{ name: "show_map", description: "Show a map to the user", parameters: { type: "object" } }];
 * await agent.invoke(input, { threadId, configurable: { [FRONTEND_TOOLS_KEY]: frontendTools } });
 */
export const FRONTEND_TOOLS_KEY = "frontend_tools";

/**
 * A frontend tool, a run's input or a tool call that does not fit: the client declared a tool with the
 * name of a server tool or twice, declared it badly, or sent a tool result no open tool call waits
 * for. Code `INVALID_ARGUMENT` (a 400 over HTTP); `toolName` / `toolCallId` name what was wrong.
 *
 * @example
 * try { checkToolResults(thread, incoming); } catch (e) { if (e instanceof FrontendToolError) e.toolCallId; }
 */
export class FrontendToolError extends TrellisError {
  readonly toolName: string | undefined;
  readonly toolCallId: string | undefined;

  constructor(message: string, details: { toolName?: string; toolCallId?: string } = {}) {
    super("INVALID_ARGUMENT", message);
    this.name = "FrontendToolError";
    this.toolName = details.toolName;
    this.toolCallId = details.toolCallId;
  }
}

const EMPTY_PARAMETERS: JsonSchema = { type: "object", properties: {} };

/**
 * Checks client tool declarations (AG-UI's `Tool`: `{ name, description, parameters? }`) and returns
 * them as tool definitions a model is offered; `parameters` defaults to an empty object schema.
 * Throws {@link FrontendToolError} for a declaration without a name or description, a name declared
 * twice, or a name that is also a server tool (`serverTools`).
 *
 * @example
 * frontendToolDefinitions([{ name: "show_map", description: "Show a place on the map" }]);
 * // [{ name: "show_map", description: "Show a place on the map", parameters: { type: "object", properties: {} } }]
 */
export function frontendToolDefinitions(
  declared: unknown,
  serverTools: ReadonlyArray<{ name: string }> = [],
): ToolDefinition[] {
  if (declared === undefined || declared === null) return [];
  if (!Array.isArray(declared)) throw new FrontendToolError("The frontend tools must be a list of tool declarations.");
  const server = new Set(serverTools.map((t) => t.name));
  const seen = new Set<string>();
  return declared.map((d: unknown, i) => {
    const { name, description, parameters } = (typeof d === "object" && d !== null ? d : {}) as Record<string, unknown>;
    if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
      throw new FrontendToolError(
        `Frontend tool ${i + 1} needs a name of 1–64 letters, digits, "_" or "-" (got ${JSON.stringify(name ?? null)}).`,
      );
    }
    if (typeof description !== "string") {
      throw new FrontendToolError(`Frontend tool "${name}" needs a description (a string).`, { toolName: name });
    }
    if (server.has(name)) {
      throw new FrontendToolError(
        `Frontend tool "${name}" has the name of one of the agent's own tools: rename it on the client.`,
        { toolName: name },
      );
    }
    if (seen.has(name)) {
      throw new FrontendToolError(`Frontend tool "${name}" is declared twice.`, { toolName: name });
    }
    seen.add(name);
    const schema =
      typeof parameters === "object" && parameters !== null ? (parameters as JsonSchema) : EMPTY_PARAMETERS;
    return { name, description, parameters: schema };
  });
}

/**
 * The frontend tools a run's config declares (`configurable[FRONTEND_TOOLS_KEY]`), checked against the
 * agent's own tools with {@link frontendToolDefinitions}.
 *
 * @example
 * const extra = frontendTools(ctx.config, tools);
 */
export function frontendTools(
  config: Readonly<RunConfig>,
  serverTools: ReadonlyArray<{ name: string }> = [],
): ToolDefinition[] {
  return frontendToolDefinitions(config.configurable?.[FRONTEND_TOOLS_KEY], serverTools);
}

/**
 * `config` with `tools` as its frontend tools: what a door passes to a run so that the agents offer
 * them to their model and leave the calls to the client.
 *
 * @example
 * await agent.invoke(input, withFrontendTools({ threadId }, [{ name: "show_map", description: "…" }]));
 */
export function withFrontendTools(
  config: RunConfig,
  tools: ReadonlyArray<{ name: string; description: string; parameters?: unknown }>,
): RunConfig {
  return { ...config, configurable: { ...config.configurable, [FRONTEND_TOOLS_KEY]: [...tools] } };
}

/**
 * The tool calls of the conversation that have no result yet, oldest first (a call whose result a
 * client still owes, or one of a turn that was cut off).
 *
 * @example
 * openToolCalls(messages).map((c) => c.name); // ["show_map"]
 */
export function openToolCalls(messages: readonly Message[]): ToolCall[] {
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return messages.flatMap((m) =>
    m.role === "assistant" ? ((m as AssistantMessage).toolCalls ?? []).filter((c) => !answered.has(c.id)) : [],
  );
}

/**
 * Checks the tool results a client sends (`incoming`, e.g. a frontend tool's result) against the
 * conversation (`thread`): each must answer a tool call of the conversation (or of `incoming` itself)
 * that has no result yet. Throws {@link FrontendToolError} naming the first that does not, and the
 * calls that are open.
 *
 * @example
 * checkToolResults(thread.messages, [toolMessage("Dorpsplein 14", { toolCallId: "call_1" })]);
 */
export function checkToolResults(thread: readonly Message[], incoming: readonly Message[]): void {
  const open = new Set(openToolCalls(thread).map((c) => c.id));
  for (const m of incoming) {
    if (m.role === "assistant") for (const c of (m as AssistantMessage).toolCalls ?? []) open.add(c.id);
    if (m.role !== "tool") continue;
    if (!open.has(m.toolCallId)) {
      const waiting = [...open];
      throw new FrontendToolError(
        `Tool result "${m.id}" answers tool call "${m.toolCallId}", which ${
          thread.some((t) => t.role === "tool" && t.toolCallId === m.toolCallId)
            ? "has its result already"
            : "is unknown"
        }: ${waiting.length ? `the open tool calls are ${waiting.map((id) => `"${id}"`).join(", ")}` : "no tool call waits for a result"}.`,
        { toolCallId: m.toolCallId },
      );
    }
    open.delete(m.toolCallId);
  }
}

/**
 * The messages a model is sent, with a stand-in error result after every tool call that was left
 * without one while the conversation went on (a frontend tool whose client never answered, and a new
 * message came in before a door could close the call): providers refuse a conversation with such a
 * call. Calls of an assistant message that only tool results follow are left alone; the stand-ins are
 * not stored.
 * @internal
 */
export function closeDanglingCalls(messages: readonly Message[]): readonly Message[] {
  const open = new Set(openToolCalls(messages).map((c) => c.id));
  if (open.size === 0) return messages;
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    out.push(m);
    // calls of the turn that ends the conversation are still the client's to answer
    if (m.role !== "assistant" || messages.slice(i + 1).every((n) => n.role === "tool")) continue;
    // after the results the calls did get, before whatever followed
    while (messages[i + 1]?.role === "tool") out.push(messages[++i] as Message);
    for (const call of (m as AssistantMessage).toolCalls ?? []) {
      if (!open.has(call.id)) continue;
      out.push({
        id: `unanswered-${call.id}`,
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        status: "error",
        content: "No result: the conversation went on without it.",
      });
    }
  }
  return out;
}
