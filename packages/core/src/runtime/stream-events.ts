/**
 * The stream modes a run can emit.
 *
 * @example
 * const modes: StreamMode[] = ["updates", "messages"];
 * for await (const [mode, chunk] of graph.stream(input, { threadId, streamMode: modes })) console.log(mode, chunk);
 */
export type StreamMode = "values" | "updates" | "messages" | "custom" | "debug";

/**
 * One event of a run's stream. `seq` grows by one with every event of the stream, so a client that
 * reconnects can say where it stopped. `namespace` is `[]` for the root graph, and one entry per
 * subgraph level (`"node:taskId"`) below it.
 *
 * @example
 * for await (const e of graph.streamEvents(input, { threadId, streamMode: ["updates"] })) console.log(e.seq, e.data);
 */
export type StreamEvent =
  | { seq: number; mode: "values"; namespace: string[]; data: Record<string, unknown> }
  | { seq: number; mode: "updates"; namespace: string[]; data: Record<string, unknown> }
  | { seq: number; mode: "messages"; namespace: string[]; data: [chunk: unknown, meta: MessageChunkMeta] }
  | { seq: number; mode: "custom"; namespace: string[]; data: unknown }
  | { seq: number; mode: "debug"; namespace: string[]; data: DebugEvent };

/**
 * Where a streamed message chunk came from.
 *
 * @example
 * for await (const [chunk, meta] of graph.stream(input, { threadId, streamMode: "messages" })) {
 *   const { node, step } = meta as MessageChunkMeta;
 *   console.log(node, step, chunk);
 * }
 */
export interface MessageChunkMeta {
  node: string;
  namespace: string;
  taskId: string;
  step: number;
  [key: string]: unknown;
}

/**
 * What `debug` mode reports.
 *
 * @example
 * for await (const event of graph.stream(input, { threadId, streamMode: "debug" })) {
 *   const e = event as DebugEvent;
 *   if (e.type === "task_result" && e.status === "error") console.error(e.node, e.error);
 * }
 */
export type DebugEvent =
  | {
      type: "task";
      step: number;
      taskId: string;
      node: string;
      /** When the task started (ms since the epoch, the graph's clock). */
      timestamp?: number;
    }
  | {
      type: "task_result";
      step: number;
      taskId: string;
      node: string;
      status: "done" | "interrupted" | "error";
      error?: string;
      /** When the task ended (ms since the epoch, the graph's clock). */
      timestamp?: number;
    }
  | { type: "checkpoint"; step: number; checkpointId: string; next: string[] };

/** An event before it is numbered. @internal */
export type UnnumberedEvent = StreamEvent extends infer E ? (E extends StreamEvent ? Omit<E, "seq"> : never) : never;

/**
 * Receives a run's events. `modes` says which ones it wants, so the runtime builds no others.
 * @internal
 */
export interface EventSink {
  readonly modes: ReadonlySet<StreamMode>;
  /** Whether events of subgraphs are wanted too. */
  readonly subgraphs: boolean;
  push(event: UnnumberedEvent): void;
}
