import type { CompiledGraph, RunConfig, StateSchema, StreamEvent, StreamMode } from "@trellis/core";
import { chunkToMessage, isStreamedEnd } from "./message-stream.js";
import { toInterrupts } from "./snapshot-shapes.js";
import { type CompatSchema, toGraphState } from "./state-schema.js";

/**
 * LangGraph's stream modes that the compat graph serves.
 *
 * @example
 * const modes: LangGraphStreamMode[] = ["updates", "messages"];
 */
export type LangGraphStreamMode = "values" | "updates" | "messages" | "custom" | "debug";

/**
 * The stream options of `graph.stream`.
 *
 * @example
 * await graph.stream(input, { ...config, streamMode: ["updates", "custom"], subgraphs: true });
 */
export interface LangGraphStreamOptions {
  streamMode?: LangGraphStreamMode | LangGraphStreamMode[];
  subgraphs?: boolean;
}

function modesOf(mode: LangGraphStreamOptions["streamMode"]): StreamMode[] {
  if (mode === undefined) return ["values"];
  return Array.isArray(mode) ? mode : [mode];
}

/** The data of one Trellis event in LangGraph's shape for its mode. @internal */
export function chunkOf(schema: CompatSchema, event: StreamEvent): unknown {
  switch (event.mode) {
    case "values":
      return toGraphState(schema, event.data ?? {}, schema.outputKeys);
    case "updates": {
      const out: Record<string, unknown> = {};
      for (const [node, update] of Object.entries(event.data)) {
        if (node === "__interrupt__") out[node] = toInterrupts(update as Parameters<typeof toInterrupts>[0]);
        else out[node] = update === undefined || update === null ? update : toGraphState(schema, update);
      }
      return out;
    }
    case "messages": {
      const [chunk, meta] = event.data;
      const { node, namespace: _ns, taskId: _t, step, ...rest } = meta;
      return [chunkToMessage(chunk), Object.assign(rest, { langgraph_node: node, langgraph_step: step })];
    }
    case "debug": {
      const d = event.data;
      const timestamp = new Date().toISOString();
      if (d.type === "checkpoint") {
        return {
          type: "checkpoint",
          timestamp,
          step: d.step,
          payload: { checkpoint_id: d.checkpointId, next: d.next },
        };
      }
      const payload: Record<string, unknown> = { id: d.taskId, name: d.node };
      if (d.type === "task_result" && d.error !== undefined) payload.error = d.error;
      return { type: d.type, timestamp, step: d.step, payload };
    }
    default:
      return event.data;
  }
}

/** An entrypoint's chunk: its return value where a state graph shows state. */
function ioChunk(io: { output(state: Record<string, unknown>): unknown }, mode: StreamMode, chunk: unknown): unknown {
  if (mode === "values") return io.output(chunk as Record<string, unknown>);
  if (mode !== "updates") return chunk;
  const out: Record<string, unknown> = {};
  for (const [node, update] of Object.entries(chunk as Record<string, unknown>)) {
    out[node] = node === "__interrupt__" ? update : io.output((update ?? {}) as Record<string, unknown>);
  }
  return out;
}

/**
 * Runs a compat graph and yields LangGraph-shaped chunks: the chunk alone with one mode, `[mode, chunk]`
 * with a list, `[namespace, …]` with `subgraphs`. @internal
 */
export function streamChunks(
  core: CompiledGraph<StateSchema>,
  schema: CompatSchema,
  input: unknown,
  config: RunConfig,
  options: LangGraphStreamOptions,
  io?: { output(state: Record<string, unknown>): unknown },
): AsyncIterableIterator<unknown> {
  const many = Array.isArray(options.streamMode);
  const subgraphs = options.subgraphs === true;
  const events = core.streamEvents(
    input as never,
    Object.assign({}, config, { streamMode: modesOf(options.streamMode), subgraphs }),
  );
  const iterator: AsyncIterableIterator<unknown> = {
    async next() {
      let r = await events.next();
      while (!r.done && r.value.mode === "messages" && isStreamedEnd(r.value.data[0])) r = await events.next();
      if (r.done) return { value: undefined, done: true };
      const e = r.value;
      const chunk = io ? ioChunk(io, e.mode, chunkOf(schema, e)) : chunkOf(schema, e);
      const ns = e.namespace;
      return {
        value: subgraphs ? (many ? [ns, e.mode, chunk] : [ns, chunk]) : many ? [e.mode, chunk] : chunk,
        done: false,
      };
    },
    async return() {
      await events.return?.();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
