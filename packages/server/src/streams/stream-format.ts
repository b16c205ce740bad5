import type { MessageChunkMeta, StreamEvent, StreamMode } from "@trellis/core";
import { wireMessage, wireValue } from "./wire-values.js";

/** Stream modes the Agent Server API accepts. */
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
    // tasks and checkpoints are read off the runtime's debug events; events off those and messages
    else if (m === "tasks" || m === "checkpoints") out.add("debug");
    else if (m === "events") {
      out.add("debug");
      out.add("messages");
    }
  }
  return [...out];
}

/**
 * Turns a run's core events into the Agent Server's SSE events for the API modes it was asked for:
 * each core event gives none, one or several (`debug` feeds `tasks`, `checkpoints` and `events`).
 *
 * @example
 * const api = new ApiEvents(["values", "tasks"], threadId);
 * for await (const e of graph.streamEvents(input, config)) for (const [name, data] of api.of(e)) store(name, data);
 */
export class ApiEvents {
  readonly #modes: ReadonlySet<string>;
  readonly #threadId: string;
  /** The root graph's latest values, for `checkpoints` events. */
  #values: unknown = {};
  #parent: string | null = null;
  /** A checkpoint whose `checkpoints` event waits for its values. */
  #checkpoint: { id: string; parent: string | null; step: number; next: string[] } | undefined;

  constructor(apiModes: readonly string[], threadId: string) {
    this.#modes = new Set(apiModes);
    this.#threadId = threadId;
  }

  /** The `checkpoints` event still waiting for its values (call once the run's stream ended). */
  flush(): Array<[string, unknown]> {
    const c = this.#checkpoint;
    if (!c) return [];
    this.#checkpoint = undefined;
    const config = (id: string) => ({
      configurable: { thread_id: this.#threadId, checkpoint_ns: "", checkpoint_id: id },
    });
    return [
      [
        "checkpoints",
        {
          config: config(c.id),
          parent_config: c.parent ? config(c.parent) : null,
          values: wireValue(this.#values),
          metadata: { step: c.step },
          next: c.next,
          tasks: [],
        },
      ],
    ];
  }

  /** The API events of one core event, as `[event name, data]`. */
  of(e: StreamEvent): Array<[string, unknown]> {
    const out: Array<[string, unknown]> = [];
    const name = (mode: string) => sseEventName({ mode: mode as StreamMode, namespace: e.namespace });
    if (e.mode === "values" && e.namespace.length === 0) {
      this.#values = e.data ?? {};
      // a checkpoint's values come in the values event that follows its debug event
      out.push(...this.flush());
    }
    if (e.mode === "debug") {
      if (this.#modes.has("debug")) out.push([name("debug"), e.data]);
      const d = e.data;
      if (this.#modes.has("tasks") && d.type === "task") {
        out.push([name("tasks"), { id: d.taskId, name: d.node, input: null, triggers: [], interrupts: [] }]);
      }
      if (this.#modes.has("tasks") && d.type === "task_result") {
        out.push([
          name("tasks"),
          { id: d.taskId, name: d.node, error: d.error ?? null, result: [], interrupts: [], status: d.status },
        ]);
      }
      if (this.#modes.has("checkpoints") && d.type === "checkpoint" && e.namespace.length === 0) {
        out.push(...this.flush());
        this.#checkpoint = { id: d.checkpointId, parent: this.#parent, step: d.step, next: d.next };
      }
      if (d.type === "checkpoint" && e.namespace.length === 0) this.#parent = d.checkpointId;
      if (this.#modes.has("events") && (d.type === "task" || d.type === "task_result")) {
        out.push([name("events"), chainEvent(d)]);
      }
      return out;
    }
    if (e.mode === "messages" && this.#modes.has("events")) {
      const [chunk, meta] = e.data;
      out.push([
        name("events"),
        {
          event: "on_chat_model_stream",
          name: meta.node,
          run_id: meta.taskId ?? null,
          data: { chunk: messageChunk(chunk) },
          metadata: { langgraph_node: meta.node, langgraph_step: meta.step },
        },
      ]);
    }
    const wanted =
      e.mode === "messages"
        ? this.#modes.has("messages") || this.#modes.has("messages-tuple")
        : this.#modes.has(e.mode);
    if (wanted) out.push([sseEventName(e), sseData(e)]);
    return out;
  }
}

/** A LangChain-style chain event (`on_chain_start` / `on_chain_end`) for a task of the run. */
function chainEvent(d: Extract<StreamEvent, { mode: "debug" }>["data"]): Record<string, unknown> {
  const task = d as { type: string; taskId: string; node: string; step: number; status?: string; error?: string };
  const start = task.type === "task";
  return {
    event: start ? "on_chain_start" : "on_chain_end",
    name: task.node,
    run_id: task.taskId,
    tags: [`graph:step:${task.step}`],
    metadata: { langgraph_node: task.node, langgraph_step: task.step },
    data: start ? {} : { output: task.status === "error" ? null : {}, ...(task.error ? { error: task.error } : {}) },
  };
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
  if (c?.type === "message" && c.message)
    return wireMessage({ ...c.message, role: "assistant", content: c.message.content });
  return wireValue(chunk);
}

/**
 * A message chunk's metadata as LangGraph sends it: `langgraph_node`, `langgraph_step`,
 * `langgraph_checkpoint_ns`, `langgraph_task_id` (for Trellis's `node`, `step`, `namespace`, `taskId`),
 * `tags`; other keys a model added keep their names, camelCase ones in snake_case.
 */
function chunkMetadata(meta: MessageChunkMeta): Record<string, unknown> {
  const { node, step, namespace, taskId, ...rest } = meta;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) out[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
  // keys added to the object built above, not in a literal after a spread of it (a new hidden class
  // per chunk on V8)
  out.langgraph_node = node;
  out.langgraph_step = step;
  out.langgraph_checkpoint_ns = namespace;
  out.langgraph_task_id = taskId;
  out.tags = [];
  return out;
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
    return [messageChunk(chunk), chunkMetadata(meta)];
  }
  if (e.mode === "values") return e.data === undefined ? {} : wireValue(e.data);
  // updates and custom data may hold messages and pauses too; debug events are Trellis's own
  return e.mode === "debug" ? e.data : wireValue(e.data);
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
