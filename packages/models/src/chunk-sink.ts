import type { ChunkListener } from "./chat-model.js";

// Kept on globalThis under a registry symbol so that two copies of this package in one process
// (a linked workspace and an installed one, say) share the same sink.
const SINK = Symbol.for("@trellis/models/chunk-sink");

type SinkHolder = { [SINK]?: ChunkListener };

/**
 * Sets the process-wide listener that receives the deltas of every model call made without an
 * explicit `onChunk`. This is how streamed tokens reach a graph's `messages` stream mode: wire the
 * runtime's emitter once, and every `model.invoke()` inside a node streams through it. Returns a
 * function that restores the previous sink. Pass `undefined` to remove the sink.
 *
 * @example
 * import { emitMessageChunk } from "@trellis/core";
 * const restore = setChunkSink(emitMessageChunk);
 * // ... later, in tests:
 * restore();
 */
export function setChunkSink(sink: ChunkListener | undefined): () => void {
  const holder = globalThis as SinkHolder;
  const previous = holder[SINK];
  if (sink) holder[SINK] = sink;
  else delete holder[SINK];
  return () => {
    if (previous) holder[SINK] = previous;
    else delete holder[SINK];
  };
}

/**
 * The process-wide chunk listener set with {@link setChunkSink}, if any.
 *
 * @example
 * const sink = getChunkSink();
 * sink?.({ type: "text", messageId: "m1", text: "Hi" });
 */
export function getChunkSink(): ChunkListener | undefined {
  return (globalThis as SinkHolder)[SINK];
}
