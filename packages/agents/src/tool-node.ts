import {
  Command,
  GraphInterrupt,
  type Interrupt,
  isControlFlowSignal,
  type NodeContext,
  type NodeReturn,
  type StateSchema,
  withScope,
} from "@trellis/core";
import {
  type AssistantMessage,
  type Message,
  runTool,
  type Tool,
  type ToolCall,
  type ToolMessage,
} from "@trellis/models";
import { frontendTools } from "./frontend-tools.js";
import { type InterruptOn, reviewCalls } from "./tool-review.js";

/**
 * Options of {@link createToolNode}.
 *
 * @example
 * const options: ToolNodeOptions = { messagesKey: "messages", interruptOn: { delete_file: true } };
 * builder.addNode("tools", createToolNode([readFile, deleteFile], options));
 */
export interface ToolNodeOptions {
  /** State key holding the conversation. Default "messages". */
  messagesKey?: string;
  /**
   * Tools whose calls wait for a person before they run: one interrupt for the batch, in LangChain's
   * human-in-the-loop shape ({@link ToolReviewRequest}), answered with `{ decisions: [...] }` —
   * `approve`, `edit` (`editedAction: { name, args }`), `reject` (`message` goes to the model), or
   * `respond` (`message` is the tool's answer).
   */
  interruptOn?: InterruptOn;
}

/** What a tool call leaves behind, as recorded by its durable step. */
interface CallRecord {
  message: ToolMessage;
  command?: { goto: string[]; update?: Record<string, unknown>; graph?: string };
}

/**
 * A node that runs the tool calls of the conversation's last assistant message, in parallel, and
 * appends one tool message per call. Each call is a durable step: when the node runs again (after an
 * interrupt in one tool, a crash or a retry) calls that already have a result are not run again. Tool
 * errors and invalid arguments become tool messages the model can read. Interrupts raised by several
 * tools surface together, each with its own id. A tool that returns a `Command` (a handoff) makes the
 * node return that command. Calls of the run's frontend tools (see `withFrontendTools`) are left open
 * for the client: route on `openToolCalls` after this node to end the run while one waits.
 *
 * @example
 * builder.addNode("tools", createToolNode([searchTool, weatherTool]));
 * builder.addConditionalEdges("agent", toolsCondition, ["tools", END]);
 */
export function createToolNode<S extends StateSchema = StateSchema>(
  tools: readonly Tool[],
  options: ToolNodeOptions = {},
): (state: Record<string, unknown>, ctx: NodeContext) => Promise<NodeReturn<S>> {
  const key = options.messagesKey ?? "messages";
  return async (state, ctx) => {
    const messages = (state[key] ?? []) as Message[];
    const last = messages[messages.length - 1];
    if (last?.role !== "assistant" || !(last as AssistantMessage).toolCalls?.length) return {};
    const calls = (last as AssistantMessage).toolCalls as ToolCall[];
    const answered = new Set(messages.filter((m) => m.role === "tool").map((m) => (m as ToolMessage).toolCallId));
    const clients = new Set(frontendTools(ctx.config, tools).map((t) => t.name));
    const pending = calls.filter((call) => !answered.has(call.id) && !clients.has(call.name));
    const plan = options.interruptOn ? reviewCalls(pending, options.interruptOn, ctx) : pending.map((run) => ({ run }));
    const settled = await Promise.allSettled(
      plan.map((p) =>
        "answer" in p
          ? Promise.resolve<CallRecord>({ message: p.answer })
          : withScope(`tool:${p.run.id}`, () => ctx.step("call", () => runCall(tools, p.run, state, ctx))),
      ),
    );
    const interrupts: Interrupt[] = [];
    const records: CallRecord[] = [];
    for (const result of settled) {
      if (result.status === "fulfilled") records.push(result.value);
      else if (result.reason instanceof GraphInterrupt) interrupts.push(...result.reason.interrupts);
      else throw result.reason;
    }
    if (interrupts.length > 0) throw new GraphInterrupt(interrupts);
    const toolMessages = records.map((r) => r.message);
    const commands = records.flatMap((r) => (r.command ? [r.command] : []));
    if (commands.length === 0) return { [key]: toolMessages } as NodeReturn<S>;
    return toCommand(commands, key, messages, toolMessages) as NodeReturn<S>;
  };
}

async function runCall(
  tools: readonly Tool[],
  call: ToolCall,
  state: Record<string, unknown>,
  ctx: NodeContext,
): Promise<CallRecord> {
  // a tool reads the run's config and long-term memory store from its context (LangGraph injects both)
  const context = ctx.store ? { config: ctx.config, store: ctx.store } : { config: ctx.config };
  const outcome = await runTool(tools, call, { state, signal: ctx.signal, context, rethrow: isControlFlowSignal });
  if (outcome.status === "success" && outcome.output instanceof Command) {
    const command = outcome.output;
    const goto = command.goto.filter((g): g is string => typeof g === "string");
    const message: ToolMessage = {
      ...outcome.message,
      content: `Transferred to ${goto.join(", ") || "the next step"}.`,
    };
    const record: CallRecord = { message, command: { goto } };
    if (command.update !== undefined) (record.command as { update?: unknown }).update = command.update;
    if (command.graph !== undefined) (record.command as { graph?: string }).graph = command.graph;
    return record;
  }
  return { message: outcome.message };
}

/** Merges the commands of handoff tools into one, carrying the tool messages along. */
function toCommand(
  commands: CallRecord["command"][],
  key: string,
  messages: readonly Message[],
  toolMessages: ToolMessage[],
): Command {
  const update: Record<string, unknown> = {};
  const goto: string[] = [];
  let graph: string | undefined;
  for (const c of commands) {
    if (!c) continue;
    Object.assign(update, c.update ?? {});
    goto.push(...c.goto);
    graph ??= c.graph;
  }
  const extra = (update[key] as Message[] | undefined) ?? [];
  // Handing off to the parent graph: it has not seen this subgraph's turn yet, so send it all; the
  // messages channel replaces messages it already has by id.
  update[key] = graph === Command.PARENT ? [...messages, ...toolMessages, ...extra] : [...toolMessages, ...extra];
  return new Command(graph === undefined ? { update, goto } : { update, goto, graph });
}
