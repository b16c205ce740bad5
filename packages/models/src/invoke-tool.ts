import { newMessageId, type ToolCall, type ToolMessage } from "./messages.js";
import { traceToolCall } from "./model-tracing.js";
import type { Tool, ToolContext } from "./tool.js";

/**
 * Options of {@link invokeTool} and {@link runTool}.
 *
 * @example
 * await invokeTool(tools, call, { state, signal: ctx.signal, rethrow: isGraphInterrupt });
 */
export interface InvokeToolOptions {
  /** Source of injected arguments; also given to the tool as `ctx.state`. */
  state?: Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
  /** Given to the tool as `ctx.context`. */
  context?: Readonly<Record<string, unknown>>;
  /**
   * Errors for which this returns true are rethrown instead of becoming a tool message: graph
   * interrupts and commands, for instance. The abort reason of `signal` is always rethrown.
   */
  rethrow?: (error: unknown) => boolean;
  /** Id of the tool message. Defaults to a random UUID. */
  newId?: () => string;
}

/**
 * The outcome of one tool call, as data: the tool message to append, plus the raw output (on success)
 * or the error (on failure) for callers that need more than the message.
 *
 * @example
 * const outcome = await runTool(tools, call);
 * if (outcome.status === "error") log.warn(outcome.error);
 * messages.push(outcome.message);
 */
export type ToolOutcome =
  | { status: "success"; output: unknown; message: ToolMessage }
  | { status: "error"; error: string; cause?: unknown; message: ToolMessage };

/**
 * Runs one tool call: finds the tool by name, fills injected arguments from `state`, validates the
 * arguments, runs the tool. Never throws for the model's mistakes or the tool's failures: an unknown
 * tool, arguments that are not JSON or do not match the schema, and a throwing tool each give an
 * `"error"` outcome whose message (status `"error"`) tells the model what to fix.
 *
 * @example
 * const outcome = await runTool([getWeather], { id: "c1", name: "get_weather", args: { city: 3 } });
 * outcome.status; // "error"
 * outcome.message.content; // 'Error: invalid arguments for tool "get_weather": city: Invalid input: expected string, received number. …'
 */
export function runTool(
  tools: Tool | readonly Tool[],
  call: ToolCall,
  options: InvokeToolOptions = {},
): Promise<ToolOutcome> {
  return traceToolCall(call, () => runToolUntraced(tools, call, options));
}

async function runToolUntraced(
  tools: Tool | readonly Tool[],
  call: ToolCall,
  options: InvokeToolOptions,
): Promise<ToolOutcome> {
  const list: readonly Tool[] = Array.isArray(tools) ? tools : [tools as Tool];
  const found = list.find((t) => t.name === call.name);
  const fail = (error: string, cause?: unknown): ToolOutcome => {
    const message = reply(call, `Error: ${error}`, options);
    message.status = "error";
    return cause === undefined ? { status: "error", error, message } : { status: "error", error, cause, message };
  };
  if (!found) {
    const names = list.map((t) => t.name).join(", ") || "none";
    return fail(`there is no tool named "${call.name}". Available tools: ${names}.`);
  }
  if (call.unparsedArgs !== undefined) {
    return fail(
      `the arguments for tool "${call.name}" were not a JSON object (received ${preview(call.unparsedArgs)}). ` +
        "Call the tool again with a JSON object matching its schema.",
    );
  }
  const state = options.state ?? {};
  const args = withInjected(found, call.args, state);
  const checked = await checkArgs(found, args);
  if (!checked.ok) {
    return fail(`invalid arguments for tool "${call.name}": ${checked.problem}. Fix the arguments and call it again.`);
  }
  const ctx: ToolContext = { toolCall: call, state, signal: options.signal, context: options.context ?? {} };
  let output: unknown;
  try {
    options.signal?.throwIfAborted();
    output = await found.fn(checked.args, ctx);
  } catch (error) {
    if (options.signal?.aborted && error === options.signal.reason) throw error;
    if (options.rethrow?.(error)) throw error;
    const text = error instanceof Error ? error.message : String(error);
    return fail(`tool "${call.name}" failed: ${text}`, error);
  }
  return { status: "success", output, message: reply(call, toolOutputText(output), options) };
}

/**
 * Runs one tool call with {@link runTool} and returns just the tool message to append.
 *
 * @example
 * const last = reply.toolCalls ?? [];
 * const results = await Promise.all(last.map((call) => invokeTool(tools, call, { state })));
 */
export async function invokeTool(
  tools: Tool | readonly Tool[],
  call: ToolCall,
  options: InvokeToolOptions = {},
): Promise<ToolMessage> {
  return (await runTool(tools, call, options)).message;
}

/**
 * The text of a tool message for a tool's output: strings as they are, `undefined` as `""`, anything
 * else as JSON.
 *
 * @example
 * toolOutputText({ temp: 18 }); // '{"temp":18}'
 */
export function toolOutputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output === undefined) return "";
  try {
    return (
      JSON.stringify(output, (_key, value) => (typeof value === "bigint" ? value.toString() : value)) ?? String(output)
    );
  } catch {
    return String(output);
  }
}

function withInjected(
  tool: Tool,
  modelArgs: Record<string, unknown>,
  state: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const args = { ...modelArgs };
  for (const [arg, key] of Object.entries(tool.injected)) {
    // The model cannot see injected arguments, so anything it sent under their names is dropped.
    delete args[arg];
    if (key in state && state[key] !== undefined) args[arg] = state[key];
  }
  return args;
}

async function checkArgs(
  tool: Tool,
  args: Record<string, unknown>,
): Promise<{ ok: true; args: Record<string, unknown> } | { ok: false; problem: string }> {
  if (tool.schema) {
    const result = await tool.schema.safeParseAsync(args);
    if (result.success) return { ok: true, args: result.data as Record<string, unknown> };
    const problem = result.error.issues
      .map((issue) => {
        const path = issue.path.map(String).join(".");
        const hint = path in tool.injected ? ` (filled from state key "${tool.injected[path]}")` : "";
        return `${path || "(arguments)"}${hint}: ${issue.message}`;
      })
      .join("; ");
    return { ok: false, problem };
  }
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const missing = required.filter((key) => args[key] === undefined);
  if (missing.length > 0) return { ok: false, problem: `missing required argument(s) ${missing.join(", ")}` };
  return { ok: true, args };
}

function reply(call: ToolCall, content: string, options: InvokeToolOptions): ToolMessage {
  return { id: (options.newId ?? newMessageId)(), role: "tool", content, toolCallId: call.id, name: call.name };
}

function preview(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
