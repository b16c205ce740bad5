import type { NodeContext } from "@trellis/core";
import {
  type AssistantMessage,
  type Message,
  runTool,
  type ToolCall,
  type ToolMessage,
  toolMessage,
} from "@trellis/models";
import { RagTimeoutError, type SearchResponse } from "../retrieval/retriever.js";
import type { ContextChunk, SubjectState } from "../state.js";
import type { TutorTools } from "./tutor-tools.js";

/**
 * The tool message the seed answers a RAG timeout with.
 *
 * @example
 * toolMessage(RAG_TIMEOUT_MESSAGE, { toolCallId: call.id });
 */
export const RAG_TIMEOUT_MESSAGE = "RAG service timeout";

/**
 * How the tool message of a failed search starts: the notes could not be searched (an outage), which
 * is not the same as the notes saying nothing about the question.
 *
 * @example
 * toolMessage(`${RAG_UNAVAILABLE_MESSAGE}: connection refused. …`, { toolCallId: call.id, status: "error" });
 */
export const RAG_UNAVAILABLE_MESSAGE = "RAG service unavailable";

/** What a tool call produced, as plain data so a durable step can record it. */
type CallRecord =
  | { kind: "rag"; content: string; chunks: ContextChunk[] }
  | { kind: "timeout" }
  | { kind: "message"; content: string; status?: "error" };

/**
 * The last assistant message's tool calls, or none.
 *
 * @example
 * const calls = pendingToolCalls(state.messages);
 */
export function pendingToolCalls(messages: readonly Message[]): ToolCall[] {
  const last = messages.at(-1);
  return last?.role === "assistant" ? ((last as AssistantMessage).toolCalls ?? []) : [];
}

/**
 * Formats search results as the seed does: `"This is chunks of context:\n"` then `"\n- <content>\n"`
 * per chunk.
 *
 * @example
 * formatChunks([{ content: "A", metadata: {} }]); // "This is chunks of context:\n\n- A\n"
 */
export function formatChunks(results: readonly ContextChunk[]): string {
  let content = "This is chunks of context:\n";
  for (const r of results) content += `\n- ${r.content}\n`;
  return content;
}

/**
 * The `rag_search` node: runs the last message's `rag_search` calls against the retriever, answers
 * each with a tool message of chunks and appends the chunks to `context`. A timeout of the RAG service
 * becomes the tool message `RAG service timeout` and empties `context`, as in the seed. Other calls of
 * the same message are answered too, so the conversation stays valid for the provider.
 *
 * @example
 * builder.addNode("rag_search", createRagSearchNode(tools)).addEdge("rag_search", "agent");
 */
export function createRagSearchNode(tools: TutorTools) {
  return async (state: SubjectState, ctx: NodeContext) => {
    const messages: ToolMessage[] = [];
    let context: ContextChunk[] = [...state.context];
    let timedOut = false;
    for (const call of pendingToolCalls(state.messages)) {
      const record = await ctx.step(`call:${call.id}`, () => runCall(tools, call, state, ctx.signal));
      if (record.kind === "timeout") {
        timedOut = true;
        messages.push(toolMessage(RAG_TIMEOUT_MESSAGE, { toolCallId: call.id, name: call.name, status: "error" }));
        continue;
      }
      if (record.kind === "rag") context = [...context, ...record.chunks];
      messages.push(toolMessageOf(call, record));
    }
    return { messages, context: timedOut ? [] : context };
  };
}

/**
 * The `get_guia` node: runs the last message's `get_guia` calls with `asignatura` injected from the
 * state (the model never supplies it) and answers each with the guide section as JSON.
 *
 * @example
 * builder.addNode("get_guia", createGetGuiaNode(tools)).addEdge("get_guia", "agent");
 */
export function createGetGuiaNode(tools: TutorTools) {
  return async (state: SubjectState, ctx: NodeContext) => {
    const messages: ToolMessage[] = [];
    for (const call of pendingToolCalls(state.messages)) {
      const record = await ctx.step(`call:${call.id}`, () => runCall(tools, call, state, ctx.signal));
      messages.push(
        record.kind === "timeout"
          ? toolMessage(RAG_TIMEOUT_MESSAGE, { toolCallId: call.id, name: call.name, status: "error" })
          : toolMessageOf(call, record),
      );
    }
    return { messages };
  };
}

async function runCall(
  tools: TutorTools,
  call: ToolCall,
  state: SubjectState,
  signal: AbortSignal,
): Promise<CallRecord> {
  if (call.name === "generate_test") {
    return {
      kind: "message",
      content: "Error: generate_test must be the only tool call of its message. Ask for the test on its own.",
      status: "error",
    };
  }
  const outcome = await runTool([tools.ragSearch, tools.getGuia], call, {
    state: state as unknown as Record<string, unknown>,
    signal,
  });
  if (outcome.status === "error") {
    if (outcome.cause instanceof RagTimeoutError) return { kind: "timeout" };
    if (call.name === "rag_search") {
      const reason = outcome.cause instanceof Error ? outcome.cause.message : outcome.message.content;
      return {
        kind: "message",
        content:
          `${RAG_UNAVAILABLE_MESSAGE}: ${reason}. The course notes could not be searched right now: tell the ` +
          "student the search service is down and to try again later; do not say the notes lack the answer.",
        status: "error",
      };
    }
    return { kind: "message", content: outcome.message.content, status: "error" };
  }
  if (call.name === "rag_search") {
    const chunks = (outcome.output as SearchResponse).results.map((r) => ({
      content: r.content,
      metadata: r.metadata,
    }));
    return { kind: "rag", content: formatChunks(chunks), chunks };
  }
  return { kind: "message", content: outcome.message.content };
}

function toolMessageOf(call: ToolCall, record: Exclude<CallRecord, { kind: "timeout" }>): ToolMessage {
  const options = { toolCallId: call.id, name: call.name };
  return record.kind === "message" && record.status === "error"
    ? toolMessage(record.content, { ...options, status: "error" })
    : toolMessage(record.content, options);
}
