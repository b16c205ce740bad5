import { isBaseMessage } from "@langchain/core/messages";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What a test compares between the LangGraph.js run and the Trellis run of one program: messages as
 * their type, content, tool calls and (non-random) ids; interrupts as their values; everything else as
 * it is.
 */
export function observe(value: unknown): unknown {
  if (isBaseMessage(value)) {
    const m = value as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = { type: value.getType(), content: value.content };
    if (typeof value.id === "string" && !UUID.test(value.id)) out.id = value.id;
    if (value.name !== undefined) out.name = value.name;
    const calls = m.tool_calls as Array<{ id?: string; name: string; args: unknown }> | undefined;
    if (calls && calls.length > 0) out.tool_calls = calls.map((c) => ({ id: c.id, name: c.name, args: c.args }));
    const chunks = m.tool_call_chunks as Array<{ id?: string; name?: string; args?: string }> | undefined;
    if (chunks && chunks.length > 0)
      out.tool_call_chunks = chunks.map((c) => ({ id: c.id, name: c.name, args: c.args }));
    if (typeof m.tool_call_id === "string") out.tool_call_id = m.tool_call_id;
    if (m.status === "error") out.status = "error";
    return out;
  }
  if (Array.isArray(value)) return value.map(observe);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      if (k === "__interrupt__" && Array.isArray(v)) out[k] = v.map((i: { value: unknown }) => observe(i.value));
      else out[k] = observe(v);
    }
    return out;
  }
  return value;
}

/** Collects an async iterable into a list of observed chunks. */
export async function collect(stream: AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of await stream) out.push(observe(chunk));
  return out;
}
