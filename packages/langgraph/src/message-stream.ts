import { AsyncLocalStorage } from "node:async_hooks";
import { BaseCallbackHandler, type HandleLLMNewTokenCallbackFields } from "@langchain/core/callbacks/base";
import { AIMessageChunk, type BaseMessage, isBaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { emitMessageChunk } from "@trellis/core";
import { toLangChainMessage, toStoredMessage } from "./message-convert.js";

interface ModelRun {
  metadata: Record<string, unknown>;
  streamed: boolean;
  name: string | undefined;
}

/**
 * A message chunk as it travels through Trellis's `messages` stream (and over the wire): the plain
 * fields of LangChain's `AIMessageChunk`, with `type: "AIMessageChunk"` (or the message's type for a
 * whole message). @internal
 */
export type WireChunk = Record<string, unknown> & { type: string };

/** A message (or chunk) as plain wire data. @internal */
export function wireOf(message: BaseMessage): WireChunk {
  const m = message as unknown as Record<string, unknown>;
  const out: WireChunk = {
    type: message.getType() === "ai" && "tool_call_chunks" in m ? "AIMessageChunk" : message.getType(),
    content: message.content,
  };
  for (const key of [
    "id",
    "name",
    "tool_calls",
    "tool_call_chunks",
    "tool_call_id",
    "additional_kwargs",
    "response_metadata",
    "usage_metadata",
  ]) {
    const value = m[key];
    if (value !== undefined && !(Array.isArray(value) && value.length === 0)) out[key] = value;
  }
  return out;
}

/** True for the whole message that follows a model's streamed tokens (kept from LangGraph-shaped streams). @internal */
export function isStreamedEnd(chunk: unknown): boolean {
  const c = chunk as { type?: unknown; streamed?: unknown } | null;
  return c?.type === "message" && c.streamed === true;
}

/** A chunk of the Trellis `messages` stream as a LangChain message (an `AIMessageChunk` for tokens). @internal */
export function chunkToMessage(chunk: unknown): BaseMessage {
  const c = chunk as Record<string, unknown> & { type?: string };
  if (c?.type === "AIMessageChunk") {
    const { type: _t, ...fields } = c;
    return new AIMessageChunk(fields as never);
  }
  if (c?.type === "text") return new AIMessageChunk({ content: String(c.text ?? ""), id: c.messageId as string });
  if (c?.type === "message") return toLangChainMessage(c.message);
  if (c?.type === "tool-call") {
    return new AIMessageChunk({
      content: "",
      id: c.messageId as string,
      tool_call_chunks: [
        {
          id: c.id as string,
          name: c.name as string,
          args: c.argsDelta as string,
          index: c.index as number,
          type: "tool_call_chunk",
        },
      ],
    });
  }
  if (typeof c?.type === "string" && c.type !== "AIMessageChunk") {
    const { type, ...fields } = c;
    return toLangChainMessage({ type, ...fields } as never);
  }
  return toLangChainMessage(chunk);
}

/**
 * Streams the tokens of LangChain chat models called inside a node to the run's `messages` mode, as
 * LangGraph's messages handler does: each token as an `AIMessageChunk`; a model called without
 * streaming, its whole message; runs tagged `nostream` are skipped. @internal
 */
export class MessagesStreamHandler extends BaseCallbackHandler {
  name = "trellis_messages_stream";
  override awaitHandlers = true;
  /** Asks chat models to stream their tokens (read by LangChain's `BaseChatModel.invoke`). */
  readonly lc_prefer_streaming = true;
  readonly #runs = new Map<string, ModelRun>();
  readonly #emit = AsyncLocalStorage.snapshot();
  readonly #nodeMetadata: Record<string, unknown>;
  /** Ids of the messages already streamed, so the node's output does not stream them again. */
  readonly seen = new Set<string>();

  constructor(nodeMetadata: Record<string, unknown>) {
    super();
    this.#nodeMetadata = nodeMetadata;
  }

  override handleChatModelStart(
    _llm: unknown,
    _messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    _extra?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    if (tags?.includes("nostream") || tags?.includes("langsmith:nostream")) return;
    this.#runs.set(runId, {
      metadata: Object.assign({}, metadata, this.#nodeMetadata, { tags: tags ?? [] }),
      streamed: false,
      name,
    });
  }

  override handleLLMNewToken(
    _token: string,
    _idx: unknown,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: HandleLLMNewTokenCallbackFields,
  ): void {
    const run = this.#runs.get(runId);
    const message = (fields?.chunk as { message?: BaseMessage } | undefined)?.message;
    if (!run || !message || !isBaseMessage(message)) return;
    run.streamed = true;
    if (message.id) this.seen.add(message.id);
    this.#push(wireOf(message), run.metadata);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const run = this.#runs.get(runId);
    this.#runs.delete(runId);
    const message = (output.generations?.[0]?.[0] as { message?: BaseMessage } | undefined)?.message;
    if (!run || !message) return;
    if (message.id) this.seen.add(message.id);
    if (!run.streamed) this.#push(wireOf(message), run.metadata);
    // after its tokens, the whole message closes them for the server's doors (AG-UI ends the text and
    // does not announce the message again from the state); the compat `stream` drops it, as LangGraph
    else this.#push({ type: "message", message: toStoredMessage(message), streamed: true }, run.metadata);
  }

  /** Streams the messages a node returned that no model streamed, as LangGraph does. */
  emitOutput(messages: readonly BaseMessage[], seenInInput: ReadonlySet<string>): void {
    for (const m of messages) {
      if (m.id && (this.seen.has(m.id) || seenInInput.has(m.id))) continue;
      if (m.id) this.seen.add(m.id);
      this.#push(wireOf(m), Object.assign({}, this.#nodeMetadata, { tags: [] }));
    }
  }

  #push(chunk: WireChunk, metadata: Record<string, unknown>): void {
    this.#emit(() => emitMessageChunk(chunk, metadata));
  }
}
