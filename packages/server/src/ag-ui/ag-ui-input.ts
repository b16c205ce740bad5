import { TrellisError } from "@trellis/checkpoint";
import { invalid } from "../http/request-body.js";
import { refuseReservedKeys } from "../runs/run-identity.js";

/**
 * The `configurable` key under which a run gets the client's AG-UI `tools` (frontend tools): the key
 * `@trellis/agents` reads (its `FRONTEND_TOOLS_KEY`), so `createReactAgent` offers them to its model
 * and leaves their calls to the client.
 * @internal
 */
export const FRONTEND_TOOLS_KEY = "frontend_tools";

/** An AG-UI tool declaration (`@ag-ui/core` `Tool`). @internal */
export interface AgUiToolDeclaration {
  name: string;
  description: string;
  parameters?: unknown;
}

interface ThreadMessage {
  id?: string;
  role?: string;
  toolCalls?: Array<{ id: string; name?: string }>;
  toolCallId?: string;
}

/**
 * `RunAgentInput.tools`, checked: a list of `{ name, description, parameters? }` (absent: none).
 * @internal
 */
export function agUiTools(tools: unknown): AgUiToolDeclaration[] {
  if (tools === undefined || tools === null) return [];
  const ok = (t: unknown): t is AgUiToolDeclaration =>
    typeof t === "object" &&
    t !== null &&
    typeof (t as AgUiToolDeclaration).name === "string" &&
    typeof (t as AgUiToolDeclaration).description === "string";
  if (!Array.isArray(tools) || !tools.every(ok)) {
    throw invalid("RunAgentInput.tools must be a list of tools, each with a name and a description.");
  }
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    ...(t.parameters !== undefined ? { parameters: t.parameters } : {}),
  }));
}

/** The ids of the tool calls of `messages` that have no result in them. */
function openCalls(messages: readonly ThreadMessage[]): Map<string, string> {
  const answered = new Set(messages.flatMap((m) => (m.role === "tool" && m.toolCallId ? [m.toolCallId] : [])));
  const open = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const c of m.toolCalls ?? []) if (!answered.has(c.id)) open.set(c.id, c.name ?? "");
  }
  return open;
}

/**
 * Checks the tool messages among the client's new messages (a frontend tool's result): each must answer
 * a tool call of the thread, or of the new messages, that has no result yet. Throws `INVALID_ARGUMENT`
 * naming the first that does not, and the calls that wait.
 * @internal
 */
export function checkToolResults(thread: readonly ThreadMessage[], fresh: readonly ThreadMessage[]): void {
  const open = openCalls(thread);
  for (const m of fresh) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) open.set(c.id, c.name ?? "");
    if (m.role !== "tool") continue;
    const callId = m.toolCallId ?? "";
    if (!open.has(callId)) {
      const known = thread.some((t) => t.role === "tool" && t.toolCallId === callId);
      const waiting = [...open.keys()].map((id) => `"${id}"`).join(", ");
      throw invalid(
        `Tool result "${m.id}" answers tool call "${callId}", which ${known ? "has its result already" : "is unknown"}: ${
          waiting ? `the open tool calls are ${waiting}` : "no tool call waits for a result"
        }.`,
      );
    }
    open.delete(callId);
  }
}

/**
 * Tool messages that close the thread's open tool calls the client went past: when its new messages
 * hold a user message but no result for a call the thread left open (a frontend tool whose result
 * never came), each such call gets an error result ahead of the new messages, so the conversation
 * never holds a call without a result (which models refuse). Nothing when the thread is paused: an
 * interrupt's calls are its own to answer.
 * @internal
 */
export function closingResults(
  thread: readonly ThreadMessage[],
  fresh: readonly ThreadMessage[],
  paused: boolean,
): Array<Record<string, unknown>> {
  if (paused || !fresh.some((m) => m.role === "user")) return [];
  const answered = new Set(fresh.flatMap((m) => (m.role === "tool" && m.toolCallId ? [m.toolCallId] : [])));
  return [...openCalls(thread)]
    .filter(([id]) => !answered.has(id))
    .map(([id, name]) => ({
      id: `closed-${id}`,
      role: "tool",
      toolCallId: id,
      ...(name ? { name } : {}),
      status: "error",
      content: "No result: the user went on with a new message instead.",
    }));
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * What the client's AG-UI `state` changes, as an update for the run's input: each key the graph's
 * schema declares and whose value differs from the thread's (a client echoing the snapshot it got
 * changes nothing); `messages` is left out (the conversation comes from `RunAgentInput.messages`).
 * A key the graph does not declare is refused with `UNKNOWN_STATE_KEY` naming it. The update goes
 * through the graph's input path: each key's reducer and the graph's input check apply.
 * @internal
 */
export function stateUpdate(
  state: unknown,
  schemaKeys: readonly string[],
  current: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (state === undefined || state === null) return {};
  if (typeof state !== "object" || Array.isArray(state)) throw invalid("RunAgentInput.state must be an object.");
  const entries = Object.entries(state as Record<string, unknown>).filter(([k]) => k !== "messages");
  const unknown = entries.map(([k]) => k).filter((k) => !schemaKeys.includes(k));
  if (unknown.length > 0) {
    throw new TrellisError(
      "UNKNOWN_STATE_KEY",
      `RunAgentInput.state has ${unknown.length === 1 ? "a key" : "keys"} the graph does not declare: ${unknown
        .map((k) => `"${k}"`)
        .join(", ")}. Its state keys are ${schemaKeys.map((k) => `"${k}"`).join(", ")}.`,
    );
  }
  const update: Record<string, unknown> = {};
  for (const [k, v] of entries) if (!same(current?.[k], v)) update[k] = v;
  return update;
}

/**
 * Refuses an AG-UI `RunAgentInput` that names the run's user itself: a reserved key (`reservedKeys`)
 * in `forwardedProps.configurable`, `forwardedProps.config.configurable`, `forwardedProps.context` or
 * `state` is a 400 naming it. The run's user is the one the server authenticated (`ctx.user`).
 *
 * @example
 * refuseAgUiIdentity({ threadId: "t1", forwardedProps: { configurable: { user_id: "alice" } } }, true); // throws
 */
export function refuseAgUiIdentity(body: Record<string, unknown>, authEnabled: boolean): void {
  const forwarded = body.forwardedProps;
  if (typeof forwarded === "object" && forwarded !== null) {
    const props = forwarded as Record<string, unknown>;
    refuseReservedKeys(props.configurable, "forwardedProps.configurable", authEnabled);
    const config = props.config;
    if (typeof config === "object" && config !== null) {
      refuseReservedKeys(
        (config as Record<string, unknown>).configurable,
        "forwardedProps.config.configurable",
        authEnabled,
      );
    }
    refuseReservedKeys(props.context, "forwardedProps.context", authEnabled);
  }
  refuseReservedKeys(body.state, "state", authEnabled);
}
