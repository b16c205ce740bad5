import { randomUUID } from "node:crypto";
import type { CompiledGraph, RunConfig, StateSchema } from "@trellis/core";
import { isStreamedEnd } from "./message-stream.js";
import { type CompatSchema, toGraphState } from "./state-schema.js";
import { chunkOf } from "./stream-shapes.js";

/** The modes `streamEvents` reads its events from. */
const STREAM_EVENTS_MODES: Array<"values" | "updates" | "messages" | "debug"> = [
  "values",
  "updates",
  "messages",
  "debug",
];

/**
 * One event of `streamEvents` (v2), as LangChain shapes it.
 *
 * @example
 * for await (const e of graph.streamEvents(input, { version: "v2" })) {
 *   if (e.event === "on_chat_model_stream") process.stdout.write(String(e.data.chunk?.content ?? ""));
 * }
 */
export interface StreamEvent {
  event: string;
  name: string;
  run_id: string;
  tags: string[];
  metadata: Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: event payloads vary by event kind, as in LangChain.
  data: { input?: unknown; output?: unknown; chunk?: any };
}

/**
 * Runs a compat graph and yields the `streamEvents` v2 events a chat UI reads: `on_chain_start` and
 * `on_chain_end` for the graph and each node, `on_chat_model_stream` for each token. @internal
 */
export function streamEventsV2(
  core: CompiledGraph<StateSchema>,
  schema: CompatSchema,
  input: unknown,
  config: RunConfig,
  name: string,
): AsyncIterableIterator<StreamEvent> {
  async function* run(): AsyncGenerator<StreamEvent> {
    const runId = randomUUID();
    const tasks = new Map<string, string>();
    yield { event: "on_chain_start", name, run_id: runId, tags: [], metadata: {}, data: { input } };
    let last: unknown = {};
    // the mode first, then set (it wins): a literal adding a key after a spread is slow on V8
    const options = { streamMode: STREAM_EVENTS_MODES, ...config };
    options.streamMode = STREAM_EVENTS_MODES;
    const events = core.streamEvents(input as never, options);
    for await (const e of events) {
      if (e.namespace.length > 0) continue;
      if (e.mode === "values") last = toGraphState(schema, e.data ?? {}, schema.outputKeys);
      else if (e.mode === "debug" && e.data.type === "task") {
        const id = randomUUID();
        tasks.set(e.data.node, id);
        const metadata = { langgraph_node: e.data.node, langgraph_step: e.data.step };
        yield { event: "on_chain_start", name: e.data.node, run_id: id, tags: [], metadata, data: {} };
      } else if (e.mode === "messages" && !isStreamedEnd(e.data[0])) {
        const [chunk, metadata] = chunkOf(schema, e) as [unknown, Record<string, unknown>];
        const modelName = typeof metadata.ls_model_name === "string" ? metadata.ls_model_name : "model";
        const tags = Array.isArray(metadata.tags) ? (metadata.tags as string[]) : [];
        yield { event: "on_chat_model_stream", name: modelName, run_id: runId, tags, metadata, data: { chunk } };
      } else if (e.mode === "updates") {
        for (const [node, output] of Object.entries(chunkOf(schema, e) as Record<string, unknown>)) {
          if (node === "__interrupt__") continue;
          const metadata = { langgraph_node: node };
          const id = tasks.get(node) ?? randomUUID();
          yield { event: "on_chain_end", name: node, run_id: id, tags: [], metadata, data: { output } };
        }
      }
    }
    yield { event: "on_chain_end", name, run_id: runId, tags: [], metadata: {}, data: { output: last } };
  }
  return run();
}
