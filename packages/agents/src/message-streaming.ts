import { emitMessageChunk } from "@trellis/core";
import { type ChatDelta, setChunkSink } from "@trellis/models";

/**
 * Sends every token that a `@trellis/models` chat model streams inside a running node to the graph's
 * `messages` stream mode, tagged with the node. Call it once at start-up; it returns a function that
 * undoes it. Models called outside a node, or while nobody streams messages, are unaffected.
 *
 * @example
 * installMessageStreaming();
 * for await (const [chunk, meta] of graph.stream(input, { streamMode: "messages" })) print(meta.node, chunk);
 */
export function installMessageStreaming(): () => void {
  return setChunkSink((delta: ChatDelta) => emitMessageChunk(delta));
}
