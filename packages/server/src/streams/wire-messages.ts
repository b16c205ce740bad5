/**
 * Messages as LangChain clients read them. The core keeps OpenAI-shaped messages (`role`, `toolCalls`,
 * `toolCallId`); LangGraph's server serialises LangChain's (`type`, `tool_calls`, `tool_call_id`), and
 * its clients (the SDK's `useStream`, agent-chat-ui) render by `type`. The Agent Server API sends both:
 * each message gets LangChain's fields beside its own.
 */

const LANGCHAIN_TYPES: Record<string, string> = { user: "human", assistant: "ai", system: "system", tool: "tool" };

interface CoreMessage {
  role: string;
  toolCalls?: Array<{ id?: string; name?: string; args?: unknown }>;
  toolCallId?: string;
  [key: string]: unknown;
}

function isMessage(value: unknown): value is CoreMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { role?: unknown }).role === "string" &&
    (value as { role: string }).role in LANGCHAIN_TYPES
  );
}

/** One message with LangChain's fields added (`type`, `tool_calls`, `tool_call_id`). */
function withLangChainFields(m: CoreMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { ...m, type: LANGCHAIN_TYPES[m.role] };
  if (m.toolCalls) {
    out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.args ?? {}, type: "tool_call" }));
  }
  if (m.toolCallId !== undefined) out.tool_call_id = m.toolCallId;
  return out;
}

/**
 * State values for the wire: every list of messages among them (a key whose value is a list of
 * messages) has its messages in both shapes. Other values pass unchanged.
 *
 * @example
 * wireValues({ messages: [{ role: "user", content: "hi" }] }).messages[0].type; // "human"
 */
export function wireValues<T>(values: T): T {
  if (typeof values !== "object" || values === null || Array.isArray(values)) return values;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(values)) {
    if (!Array.isArray(value) || value.length === 0 || !value.every(isMessage)) continue;
    out ??= { ...(values as Record<string, unknown>) };
    out[key] = value.map(withLangChainFields);
  }
  return (out ?? values) as T;
}

/**
 * An `updates` event's data for the wire: `{ node: update }`, each update through {@link wireValues}.
 *
 * @example
 * wireUpdates({ agent: { messages: [{ role: "assistant", content: "ok" }] } }).agent.messages[0].type; // "ai"
 */
export function wireUpdates<T>(updates: T): T {
  if (typeof updates !== "object" || updates === null || Array.isArray(updates)) return updates;
  return Object.fromEntries(Object.entries(updates).map(([node, update]) => [node, wireValues(update)])) as T;
}
