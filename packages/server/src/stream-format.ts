import type { StreamEvent, StreamMode } from "@trellis/core";

/** Stream modes the Agent Server API accepts; the ones Trellis has no data for are accepted and stay silent. */
export const API_STREAM_MODES = new Set([
  "values",
  "updates",
  "messages",
  "messages-tuple",
  "custom",
  "debug",
  "events",
  "tasks",
  "checkpoints",
]);

/**
 * The core stream modes a run needs for the API modes it was asked for.
 *
 * @example
 * coreModes(["values", "messages-tuple"]); // ["values", "messages"]
 */
export function coreModes(apiModes: readonly string[]): StreamMode[] {
  const out = new Set<StreamMode>();
  for (const m of apiModes) {
    if (m === "values" || m === "updates" || m === "custom" || m === "debug") out.add(m);
    else if (m === "messages" || m === "messages-tuple") out.add("messages");
  }
  return [...out];
}

/**
 * The SSE event name of a core event: its mode, with the subgraph namespace appended LangGraph's way
 * (`updates|child:task-id`).
 *
 * @example
 * sseEventName({ seq: 1, mode: "updates", namespace: ["quiz:1"], data: {} }); // "updates|quiz:1"
 */
export function sseEventName(e: Pick<StreamEvent, "mode" | "namespace">): string {
  return e.namespace.length ? `${e.mode}|${e.namespace.join("|")}` : e.mode;
}

/** A message chunk in the shape LangGraph clients expect from `messages-tuple` mode. */
function messageChunk(chunk: unknown): unknown {
  const c = chunk as { type?: string; messageId?: string; text?: string; message?: Record<string, unknown> };
  if (c?.type === "text") return { type: "AIMessageChunk", id: c.messageId, content: c.text ?? "" };
  if (c?.type === "tool-call") {
    const t = chunk as { messageId: string; index: number; id: string; name: string; argsDelta: string };
    return {
      type: "AIMessageChunk",
      id: t.messageId,
      content: "",
      tool_call_chunks: [{ id: t.id, name: t.name, args: t.argsDelta, index: t.index }],
    };
  }
  if (c?.type === "message" && c.message) return { type: "ai", ...c.message };
  return chunk;
}

/**
 * The SSE payload of a core event, in the Agent Server's JSON shapes.
 *
 * @example
 * sseData({ seq: 1, mode: "values", namespace: [], data: { n: 1 } }); // { n: 1 }
 */
export function sseData(e: StreamEvent): unknown {
  if (e.mode === "messages") {
    const [chunk, meta] = e.data;
    return [messageChunk(chunk), { ...meta, langgraph_node: meta.node, langgraph_step: meta.step, tags: [] }];
  }
  if (e.mode === "values" && e.data === undefined) return {};
  return e.data;
}

/**
 * True when a stored event belongs to the modes a follower asked for (`metadata`, `error` and `end`
 * always do).
 *
 * @example
 * wantsEvent("updates|quiz:1", ["updates"]); // true
 */
export function wantsEvent(event: string, modes: readonly string[] | undefined): boolean {
  if (!modes || modes.length === 0) return true;
  const base = event.split("|")[0] as string;
  if (base === "metadata" || base === "error" || base === "end") return true;
  if (base === "messages") return modes.includes("messages") || modes.includes("messages-tuple");
  return modes.includes(base);
}
