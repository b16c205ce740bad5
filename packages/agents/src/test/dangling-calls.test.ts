// A frontend tool call the client never answered, with a new message after it (a message that was
// queued before a door could close the call): the model is sent a stand-in error result right after
// the call, so a provider never sees a call without a result; the stand-in is not stored.
import { MemorySaver } from "@trellis/core";
import { type Message, ScriptedChatModel, userMessage } from "@trellis/models";
import { describe, expect, it } from "vitest";
import { createReactAgent, openToolCalls } from "../index.js";

describe("a tool call left open while the conversation went on", () => {
  it("reaches the model with a stand-in result after it, and stays as it was in the thread", async () => {
    const model = new ScriptedChatModel(["Hello again."]);
    const agent = createReactAgent({ model, tools: [], checkpointer: new MemorySaver() });
    const history: Message[] = [
      userMessage("show it", { id: "u1" }),
      { id: "a1", role: "assistant", content: "", toolCalls: [{ id: "c1", name: "show_map", args: {} }] },
      userMessage("never mind", { id: "u2" }),
    ];
    const out = await agent.invoke({ messages: history }, { threadId: "dangling" });
    const sent = model.calls[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(sent[2]).toMatchObject({ toolCallId: "c1", status: "error", content: expect.stringContaining("No result") });
    expect(out.messages.map((m) => m.id)).toEqual(["u1", "a1", "u2", expect.any(String)]);
    expect(openToolCalls(out.messages).map((c) => c.id)).toEqual(["c1"]);
  });
});
