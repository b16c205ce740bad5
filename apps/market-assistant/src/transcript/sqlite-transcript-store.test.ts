import { afterEach, describe, expect, it } from "vitest";
import type { ChatMessage } from "./chat-message.js";
import { SqliteTranscriptStore } from "./sqlite-transcript-store.js";

const message = (thread_id: string, content: string, role: ChatMessage["role"] = "user"): ChatMessage => ({
  id: `${thread_id}-${content}`,
  thread_id,
  role,
  content,
  timestamp: "2025-01-01T00:00:00.000Z",
});

describe("SqliteTranscriptStore", () => {
  let store: SqliteTranscriptStore | undefined;
  afterEach(() => store?.close());

  it("keeps each thread's messages in order", async () => {
    store = new SqliteTranscriptStore({ path: ":memory:" });
    await store.append(message("a", "one"));
    await store.append(message("b", "other"));
    await store.append({
      ...message("a", "two", "assistant"),
      metadata: { agent_type: "langgraph", model: "m", processing_time: 0.1 },
    });
    expect((await store.list("a")).map((m) => m.content)).toEqual(["one", "two"]);
    expect((await store.list("a"))[1]?.metadata?.model).toBe("m");
    expect(await store.list("nobody")).toEqual([]);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it("deletes one thread's messages (its data goes with the thread), the others stay", async () => {
    store = new SqliteTranscriptStore({ path: ":memory:" });
    await store.append(message("a", "one"));
    await store.append(message("b", "other"));
    await store.delete("a");
    await store.delete("nobody");
    expect(await store.list("a")).toEqual([]);
    expect((await store.list("b")).map((m) => m.content)).toEqual(["other"]);
    await store.append(message("a", "fresh"));
    expect((await store.list("a")).map((m) => m.content)).toEqual(["fresh"]);
  });

  it("expires a thread ttlSeconds after its last message, like the Redis key", async () => {
    let now = 1_000_000;
    store = new SqliteTranscriptStore({ path: ":memory:", ttlSeconds: 60, now: () => now });
    await store.append(message("t", "one"));
    now += 59_000;
    await store.append(message("t", "two")); // pushes expiry back to a full minute
    now += 59_000;
    expect((await store.list("t")).map((m) => m.content)).toEqual(["one", "two"]);
    now += 2_000;
    expect(await store.list("t")).toEqual([]);
    await store.append(message("t", "fresh"));
    expect((await store.list("t")).map((m) => m.content)).toEqual(["fresh"]);
  });

  it("refuses a TTL that is not a positive integer", () => {
    expect(() => new SqliteTranscriptStore({ path: ":memory:", ttlSeconds: 0 })).toThrow(/ttlSeconds/);
  });
});
