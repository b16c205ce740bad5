/**
 * Values as the Agent Server API sends them: in LangGraph's shapes, one spelling each. The core keeps
 * its own shapes — OpenAI-shaped messages (`role`, `toolCalls`, `toolCallId`, `usage`) and human-in-
 * the-loop requests that carry both LangChain spellings (`actionRequests` for LangChain.js readers in
 * the process, `action_requests` for Python and agent-chat-ui). On the wire a message is LangChain's
 * (`type`, `content`, `id`, `tool_calls`, `tool_call_id`, `usage_metadata`), as `useStream` and
 * agent-chat-ui render it, and a human-in-the-loop request is LangChain's snake_case one
 * (`action_requests`, `review_configs` with `action_name` and `allowed_decisions`). Every API answer and
 * stream event that carries state, an update or an interrupt goes through {@link wireValue}.
 */

const LANGCHAIN_TYPES: Record<string, string> = { user: "human", assistant: "ai", system: "system", tool: "tool" };

interface CoreMessage {
  role: string;
  content: unknown;
  toolCalls?: unknown;
  toolCallId?: unknown;
  usage?: unknown;
  [key: string]: unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A Trellis message: one of the four roles, with content. */
function isCoreMessage(value: Record<string, unknown>): value is CoreMessage {
  return typeof value.role === "string" && value.role in LANGCHAIN_TYPES && "content" in value;
}

/** A LangChain human-in-the-loop request, in either spelling. */
function isHitlRequest(value: Record<string, unknown>): boolean {
  return Array.isArray(value.action_requests ?? value.actionRequests);
}

/**
 * One Trellis message as LangChain clients read it: `role` becomes `type` (human, ai, system, tool),
 * `toolCalls` `tool_calls`, `toolCallId` `tool_call_id`, `usage` `usage_metadata`; `id`, `content`,
 * `name` and a tool result's `status` keep their names. No field is sent twice.
 *
 * @example
 * wireMessage({ id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", name: "f", args: {} }] });
 * // { id: "a1", type: "ai", content: "", tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }] }
 */
export function wireMessage(m: CoreMessage): Record<string, unknown> {
  const { role, toolCalls, toolCallId, usage, type: _type, ...rest } = m;
  // `rest` is this call's own object: keys are added to it, not in a literal after a spread of it (on
  // V8 that makes a new hidden class per message)
  const out: Record<string, unknown> = rest;
  out.type = LANGCHAIN_TYPES[role];
  if (Array.isArray(toolCalls)) {
    out.tool_calls = toolCalls.map((c: { id?: unknown; name?: unknown; args?: unknown }) => ({
      id: c.id,
      name: c.name,
      args: c.args ?? {},
      type: "tool_call",
    }));
  }
  if (toolCallId !== undefined) out.tool_call_id = toolCallId;
  if (isPlainObject(usage)) out.usage_metadata = usageMetadata(usage);
  return out;
}

/** Token usage in LangChain's `usage_metadata` shape. */
function usageMetadata(u: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: u.inputTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    total_tokens: u.totalTokens ?? 0,
  };
  if (u.cachedInputTokens !== undefined) out.input_token_details = { cache_read: u.cachedInputTokens };
  if (u.reasoningTokens !== undefined) out.output_token_details = { reasoning: u.reasoningTokens };
  return out;
}

/** A human-in-the-loop request in LangChain's snake_case spelling only; its other keys unchanged. */
function wireHitl(v: Record<string, unknown>): Record<string, unknown> {
  const { actionRequests, reviewConfigs, action_requests, review_configs, ...rest } = v;
  const configs = (review_configs ?? reviewConfigs) as unknown;
  const out: Record<string, unknown> = rest; // this call's own object, as in wireMessage
  out.action_requests = action_requests ?? actionRequests;
  if (Array.isArray(configs)) {
    out.review_configs = configs.map((c) => {
      if (!isPlainObject(c)) return c;
      const { actionName, allowedDecisions, action_name, allowed_decisions, ...more } = c;
      const config: Record<string, unknown> = more;
      config.action_name = action_name ?? actionName;
      config.allowed_decisions = allowed_decisions ?? allowedDecisions;
      return config;
    });
  } else if (configs !== undefined) out.review_configs = configs;
  return out;
}

/**
 * A value for the Agent Server API: every Trellis message in it, at any depth, in LangChain's shape
 * ({@link wireMessage}) and every human-in-the-loop request in LangChain's snake_case spelling. Other
 * data passes unchanged (the same object when nothing in it changed).
 *
 * @example
 * wireValue({ messages: [{ id: "u1", role: "user", content: "hi" }] }); // { messages: [{ id: "u1", content: "hi", type: "human" }] }
 * wireValue({ actionRequests: [r], action_requests: [r], reviewConfigs: [], review_configs: [] }); // { action_requests: [r], review_configs: [] }
 */
export function wireValue<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = value[i] as unknown;
      if (typeof item !== "object" || item === null) continue;
      const next = wireValue(item);
      if (next !== item) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    return (out ?? value) as T;
  }
  if (!isPlainObject(value)) return value;
  let v: Record<string, unknown> = value;
  if (isCoreMessage(v)) v = wireMessage(v);
  else if (isHitlRequest(v)) v = wireHitl(v);
  let out: Record<string, unknown> | undefined;
  for (const key in v) {
    const item = v[key];
    if (typeof item !== "object" || item === null) continue;
    const next = wireValue(item);
    if (next !== item) {
      out ??= v === value ? { ...v } : v;
      out[key] = next;
    }
  }
  return (out ?? v) as T;
}
