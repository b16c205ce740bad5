/** Metadata stored with an agent reply, as the seed's server writes it. */
export interface MessageMetadata {
  /** Always `"langgraph"`: the reply came from the agent graph. */
  agent_type: string;
  /** The model that answered, e.g. `gpt-4o-mini` or the offline model's name. */
  model: string;
  /** Seconds the agent took. */
  processing_time: number;
  /** How the run ended: `answered`, `partial` (iteration cap), `llm_error` or `error`. */
  outcome?: string;
  /** `unavailable` when the transcript store could not be read and the agent answered without history. */
  history?: "loaded" | "unavailable";
}

/**
 * One message of a thread as stored and as served over HTTP (snake_case: the wire format of the
 * seed's FastAPI server).
 *
 * @example
 * const message: ChatMessage = {
 *   id: "5f0c…", thread_id: "t-1", role: "user", content: "Tell me about John Keells",
 *   timestamp: "2025-01-01T00:00:00.000Z",
 * };
 */
export interface ChatMessage {
  id: string;
  thread_id: string;
  role: "user" | "assistant";
  content: string;
  /** ISO 8601. */
  timestamp: string;
  metadata?: MessageMetadata;
}

/**
 * Where the transcripts of threads live: Redis (`RedisTranscriptStore`, as the seed designs) or the
 * embedded SQLite file (`SqliteTranscriptStore`). Both expire a thread a fixed time after its last
 * message (24 hours by default).
 *
 * @example
 * await store.append({ id, thread_id: "t-1", role: "user", content: "Hi", timestamp });
 * const messages = await store.list("t-1");
 */
export interface TranscriptStore {
  /** `redis` or `sqlite`, for logs and health checks. */
  readonly kind: string;
  /** Appends a message to its thread and pushes the thread's expiry back to a full TTL. */
  append(message: ChatMessage): Promise<void>;
  /** The thread's messages, oldest first; `[]` for an unknown or expired thread. */
  list(threadId: string): Promise<ChatMessage[]>;
  /** Deletes the thread's messages (nothing for an unknown thread): its data goes with the thread. */
  delete(threadId: string): Promise<void>;
  /** Resolves when the store answers; rejects with the reason when it does not. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reads a stored message, or `undefined` when the value is not one (a foreign or corrupted entry).
 *
 * @example
 * parseChatMessage('{"id":"1","thread_id":"t","role":"user","content":"hi","timestamp":"…"}');
 */
export function parseChatMessage(raw: string): ChatMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  const ok =
    typeof m.id === "string" &&
    typeof m.thread_id === "string" &&
    (m.role === "user" || m.role === "assistant") &&
    typeof m.content === "string" &&
    typeof m.timestamp === "string";
  return ok ? (m as unknown as ChatMessage) : undefined;
}
