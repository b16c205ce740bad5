import {
  type AssistantMessage,
  type Message,
  messageText,
  type RuleContext,
  type ToolCallInput,
  type ToolMessage,
} from "@trellis/models";

/**
 * The user's request an agent has to act on now: the last user message when it is the last message,
 * or when the last message is the result of the handoff that brought the conversation here.
 * `undefined` when the agent is in the middle of its own tool calls.
 *
 * @example
 * const text = incomingRequest(ctx); // "Maak een inspectierapport voor …" right after transfer_to_reporting
 */
export function incomingRequest(ctx: RuleContext): string | undefined {
  const last = ctx.last;
  if (last?.role === "user") return messageText(last);
  if (last?.role === "tool" && isHandoffResult(last)) return messageText(ctx.lastUser);
  return undefined;
}

/**
 * True for the tool message a handoff tool (`transfer_to_…`) leaves behind.
 *
 * @example
 * isHandoffResult({ role: "tool", name: "transfer_to_reporting", content: "Transferred to reporting-agent.", … }); // true
 */
export function isHandoffResult(message: Message): boolean {
  return message.role === "tool" && (message.name ?? "").startsWith("transfer_to_");
}

/**
 * The last message when it is the result of tool `name` (any tool when `name` is left out).
 *
 * @example
 * const verified = lastToolResult(ctx, "verify_inspection_data");
 */
export function lastToolResult(ctx: RuleContext, name?: string): ToolMessage | undefined {
  const last = ctx.last;
  if (last?.role !== "tool") return undefined;
  if (name !== undefined && last.name !== name) return undefined;
  return last;
}

/**
 * A tool message's content as a JSON object, or `undefined` when it is not one (an error text, say).
 *
 * @example
 * toolJson(result)?.report_id;
 */
export function toolJson(message: ToolMessage | undefined): Record<string, unknown> | undefined {
  if (!message || message.status === "error") return undefined;
  try {
    const value = JSON.parse(message.content) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The tool call a tool message answers.
 *
 * @example
 * const call = callOf(ctx.messages, result); // { name: "request_clarification", args: { questions } }
 */
export function callOf(messages: readonly Message[], result: ToolMessage): ToolCallInput | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "assistant") continue;
    const call = (m as AssistantMessage).toolCalls?.find((c) => c.id === result.toolCallId);
    if (call) return call;
  }
  return undefined;
}

/**
 * The newest value of `key` in the JSON results of earlier tool calls (e.g. the report id).
 *
 * @example
 * latestToolValue(ctx.messages, "report_id"); // "IR-20250101-a1b2c3"
 */
export function latestToolValue(messages: readonly Message[], key: string): unknown {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "tool") continue;
    const value = toolJson(m)?.[key];
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * A setting from the "User settings: k=v; …" line the agents' system prompt carries.
 *
 * @example
 * promptSetting(ctx.messages, "inspector_name"); // "Jan de Vries"
 */
export function promptSetting(messages: readonly Message[], key: string): string | undefined {
  const system = messages.find((m) => m.role === "system");
  const line = system?.content.split("\n").find((l) => l.startsWith("User settings: "));
  if (!line) return undefined;
  for (const pair of line.slice("User settings: ".length).split("; ")) {
    const at = pair.indexOf("=");
    if (pair.slice(0, at) === key) return pair.slice(at + 1);
  }
  return undefined;
}

/** What a tool call that could not reach its MCP server says (`McpServerUnavailableError`). */
const UNAVAILABLE = /^Error: tool "[^"]+" failed: MCP server "[^"]+" (?:exited while|is not available)/;

/**
 * The call to repeat when the last message is a tool call that failed only because its MCP server was
 * down (the error says "Retry the call."), and that call was not itself such a repeat: a model retries
 * once, as the error invites, so an answer the inspector typed is not lost to a restart.
 *
 * @example
 * const again = retryableFailure(ctx); // { name: "submit_verification_answers", args: { … } }
 */
export function retryableFailure(ctx: RuleContext): ToolCallInput | undefined {
  const failed = lastToolResult(ctx);
  if (failed?.status !== "error" || !UNAVAILABLE.test(failed.content)) return undefined;
  const before = [...ctx.messages.slice(0, -1)].reverse().find((m): m is ToolMessage => m.role === "tool");
  if (before && before.name === failed.name && before.status === "error" && UNAVAILABLE.test(before.content)) {
    return undefined;
  }
  const call = callOf(ctx.messages, failed);
  return call ? { name: call.name, args: call.args ?? {} } : undefined;
}
